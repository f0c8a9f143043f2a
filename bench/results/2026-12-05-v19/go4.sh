# session 16, device call 4: the JIT's default (TMA-only kernels, the kernel as asked for where a launch
# leaves a view unstaged) under the full gpu_test_gemm loaded through tilecModuleLoadSource; the quick
# gpu_test_gemm as before (its new unstaged cases); then SM clock and power while cuBLAS TF32 (PyTorch)
# and tilec tf32-rne 128x256 run 4096^3 back to back (ncu, clocks locked, put them at 0.97x of each
# other, the free-running benchmark at 0.83x: is it the power cap?).
. bench/device/env.sh
S=$SECONDS; END=420; L=/tmp/logs; mkdir -p $L
run() { local name=$1 lim=$2; shift 2; local left=$((END - SECONDS + S)); [ $left -lt 20 ] && { echo "$name SKIPPED (no time)"; return; }
  [ $lim -gt $left ] && lim=$left
  ( timeout $lim "$@" > $L/$name.log 2>&1; echo "$name exit $?" ); tail -1 $L/$name.log; grep -B2 FAIL $L/$name.log | head -12; echo "  t=$((SECONDS-S))"; }
TILEC_TEST_LOAD=source run t_gemm_source 200 $B/bin/gpu_test_gemm
grep -E "fallback|not staged" $L/t_gemm_source.log | head -4
TILEC_GPU_QUICK=1 run t_gemm_quick 80 $B/bin/gpu_test_gemm
grep -E "not staged" $L/t_gemm_quick.log | head -2
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv,noheader -lms 100 > $L/smi.log &
SMI=$!
sleep 2; echo "cublas $(date +%s.%N)" > $L/phases.log
PYTHONUNBUFFERED=1 timeout 30 python3 -c "
import torch,time
torch.backends.cuda.matmul.allow_tf32=True
a=torch.rand(4096,4096,device='cuda')-0.5; b=torch.rand(4096,4096,device='cuda')-0.5
for _ in range(5): c=a@b
torch.cuda.synchronize(); t=time.time(); n=0
while time.time()-t<5:
    for _ in range(20): c=a@b
    torch.cuda.synchronize(); n+=20
dt=time.time()-t; print('torch tf32 4096: %d launches %.3f ms each %.1f TFLOP/s'%(n,dt/n*1e3,2*4096**3*n/dt/1e12))
" 2>&1 | tee $L/torch.log
echo "idle $(date +%s.%N)" >> $L/phases.log; sleep 3
echo "tilec $(date +%s.%N)" >> $L/phases.log
timeout 60 $B/bin/bench_gemm --archs=sm_90a --no-cublas --modes=tf32-rne --shapes=4096 --cfg=128x256x32w8g8 --target-ms=5000 --batch-ms=10 --warmup-ms=500 --compile-runs=1 2>&1 | grep -E '^[0-9]+x' | tee $L/tilec.log
echo "end $(date +%s.%N)" >> $L/phases.log; sleep 1; kill $SMI
python3 - $L <<'PY'
import sys,datetime,statistics as st
L=sys.argv[1]; ph=[l.split() for l in open(L+'/phases.log')]; ph=[(n,float(t)) for n,t in ph]
rows=[]
for l in open(L+'/smi.log'):
    p=[x.strip() for x in l.split(',')]
    try: ts=datetime.datetime.strptime(p[0],'%Y/%m/%d %H:%M:%S.%f').timestamp(); rows.append((ts,float(p[1].split()[0]),float(p[2].split()[0]),p[3]))
    except Exception: pass
for (n,t0),(_,t1) in zip(ph,ph[1:]):
    w=[r for r in rows if t0<=r[0]<t1 and r[2]>200]
    if w: print('%-6s %3d samples >200 W: SM clock median %.0f MHz (min %.0f), power median %.0f W, temp %s C'%(n,len(w),st.median(r[1] for r in w),min(r[1] for r in w),st.median(r[2] for r in w),w[-1][3]))
    else: print(n,'no busy samples')
PY
tar -C $L -cJf $OUT/logs.tar.xz . && ls -la $OUT
echo "t=$((SECONDS-S))"
