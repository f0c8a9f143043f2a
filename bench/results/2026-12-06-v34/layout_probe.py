# cuBLAS TF32 by operand layout (session 31): does cuBLAS run faster, and at
# what clock and power, when both operands are K-major (TN) than with a
# row-major B (NN, the benchmark's layout)? Decides whether a K-major copy
# of B (both wgmma operands from shared memory) is worth building.
import subprocess, sys, time, torch
torch.backends.cuda.matmul.allow_tf32 = True
dev = torch.device("cuda")
print(torch.cuda.get_device_name(0), flush=True)

def run(name, m, n, k, bt, dtype=torch.float32, reps=60):
    copies = 3
    A = [torch.randn(m, k, device=dev, dtype=dtype) for _ in range(copies)]
    if bt:
        B = [torch.randn(n, k, device=dev, dtype=dtype).t() for _ in range(copies)]  # K-major B
    else:
        B = [torch.randn(k, n, device=dev, dtype=dtype) for _ in range(copies)]      # row-major B
    C = torch.empty(m, n, device=dev, dtype=dtype)
    for i in range(10):
        torch.matmul(A[i % copies], B[i % copies], out=C)
    torch.cuda.synchronize()
    smi = subprocess.Popen(["nvidia-smi", "--query-gpu=clocks.sm,power.draw", "--format=csv,noheader,nounits",
                            "-lms", "50"], stdout=subprocess.PIPE, text=True)
    time.sleep(0.3)
    ts = []
    for i in range(reps):
        e0 = torch.cuda.Event(enable_timing=True); e1 = torch.cuda.Event(enable_timing=True)
        e0.record(); torch.matmul(A[i % copies], B[i % copies], out=C); e1.record()
        ts.append((e0, e1))
    torch.cuda.synchronize()
    smi.terminate(); out = smi.communicate()[0]
    ms = sorted(a.elapsed_time(b) for a, b in ts)[len(ts) // 2]
    vals = [l.split(",") for l in out.strip().splitlines() if "," in l]
    clk = sorted(float(v[0]) for v in vals); pw = sorted(float(v[1]) for v in vals)
    med = lambda x: x[len(x) // 2] if x else float("nan")
    print(f"{name:5s} {m}x{n}x{k} {'TN' if bt else 'NN'}: {ms:.3f} ms {2*m*n*k/ms/1e9:.1f} TFLOP/s "
          f"sm clock median {med(clk):.0f} MHz, power median {med(pw):.0f} W ({len(vals)} samples)", flush=True)

quick = "--quick" in sys.argv  # one round, tf32 only
for rnd in range(1 if quick else 2):
    for s in (4096, 8192):
        for bt in (False, True):
            run("tf32", s, s, s, bt, reps=60 if s == 4096 else 25)
for s in () if quick else (8192,):
    for bt in (False, True):
        run("bf16", s, s, s, bt, dtype=torch.bfloat16, reps=25)
