// probe.cu -- Hopper (sm_90a) wgmma.mma_async convention probe:
//   bf16 x bf16 -> fp32, A and B both from shared memory via 64-bit matrix descriptors,
//   A K-major (imm-trans-a = 0), B MN-major / N-major (imm-trans-b = 1), 128-byte swizzle.
// One block of one warpgroup (128 threads) computes D[64][N] = A[64][K] * B[K][N], N in {64,128,256},
// K in {16 (one wgmma), 64 (four k16 wgmmas, scale-d = 0 for the first, 1 after)}.
//
// B layout / descriptor variants:
//   a  "panel":  byte(k,n) = (n>>6)*PANEL + k*128 + ((((n&63)>>3)^(k&7))<<4) + (n&7)*2, PANEL = 64*128;
//                LBO = PANEL, SBO = 1024, k16 step: start += 2048
//   b  "tile":   CUTLASS tile_to_shape: 8x64 atoms at ((n>>6) + (k>>3)*(N/64))*1024, inside the atom
//                (k&7)*128 + ((((n&63)>>3)^(k&7))<<4) + (n&7)*2;  LBO = 1024, SBO = (N/64)*1024,
//                k16 step: start += 2*SBO
//   c  "swap":   layout of (a), LBO and SBO fields swapped (LBO = 1024, SBO = PANEL)
//   d  "split":  layout of (a), one m64n64k16 wgmma per 64-wide panel (start += PANEL per panel),
//                each on its own 32 accumulators (only N > 64)
// A: row m = 128 B (64 bf16 of k), byte(m,k) = m*128 + (((k>>3)^(m&7))<<4) + (k&7)*2;
//    desc: start = tileA + 32*s, LBO field = 1, SBO = 1024, swizzle = 1 (128B), base offset 0.
//
// The parent process never touches CUDA; it re-executes itself once per variant ("--run i"), so a
// sticky CUDA error (illegal instruction / address) in one variant cannot poison the others.
// Output: one "variant X N=.. K=..: PASS|FAIL (...)" line per variant; exit 0 (77 if no usable GPU).
// Usage: ./probe            all variants
//        ./probe --run I    only variant I (in-process; handy under compute-sanitizer)
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <vector>
#include <unistd.h>
#include <sys/wait.h>

#define CHECK(call)                                                                          \
  do {                                                                                       \
    cudaError_t e_ = (call);                                                                 \
    if (e_ != cudaSuccess) {                                                                 \
      printf("%s: FAIL (CUDA error %s: %s, at %s:%d: %s)\n", g_name, cudaGetErrorName(e_),   \
             cudaGetErrorString(e_), __FILE__, __LINE__, #call);                             \
      fflush(stdout);                                                                        \
      exit(2);                                                                               \
    }                                                                                        \
  } while (0)

static char g_name[64] = "probe";
static const char* g_argv0 = "probe";

// ----------------------------------------------------------------------------------------------
// Device side
// ----------------------------------------------------------------------------------------------
#define REGS_0 "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define REGS_1 "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define REGS_2 "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95"
#define REGS_3 "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"

#define ACC8(o) "+f"(d[(o) + 0]), "+f"(d[(o) + 1]), "+f"(d[(o) + 2]), "+f"(d[(o) + 3]), \
                "+f"(d[(o) + 4]), "+f"(d[(o) + 5]), "+f"(d[(o) + 6]), "+f"(d[(o) + 7])
#define ACC32(o) ACC8(o), ACC8((o) + 8), ACC8((o) + 16), ACC8((o) + 24)

// scale-d predicate from a runtime int; imm-scale-a = 1, imm-scale-b = 1, imm-trans-a = 0, imm-trans-b = 1
#define WGMMA_PRE(P) "{\n.reg .pred p;\nsetp.ne.b32 p, %" #P ", 0;\n"

template <int N> __device__ __forceinline__ void wgmma_ss(float* d, uint64_t da, uint64_t db, int scale_d);

template <> __device__ __forceinline__ void wgmma_ss<64>(float* d, uint64_t da, uint64_t db, int scale_d) {
  asm volatile(WGMMA_PRE(34)
               "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {" REGS_0 "}, %32, %33, p, 1, 1, 0, 1;\n}\n"
               : ACC32(0)
               : "l"(da), "l"(db), "r"(scale_d) : "memory");
}
template <> __device__ __forceinline__ void wgmma_ss<128>(float* d, uint64_t da, uint64_t db, int scale_d) {
  asm volatile(WGMMA_PRE(66)
               "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {" REGS_0 ", " REGS_1 "}, %64, %65, p, 1, 1, 0, 1;\n}\n"
               : ACC32(0), ACC32(32)
               : "l"(da), "l"(db), "r"(scale_d) : "memory");
}
template <> __device__ __forceinline__ void wgmma_ss<256>(float* d, uint64_t da, uint64_t db, int scale_d) {
  asm volatile(WGMMA_PRE(130)
               "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {" REGS_0 ", " REGS_1 ", " REGS_2 ", " REGS_3
               "}, %128, %129, p, 1, 1, 0, 1;\n}\n"
               : ACC32(0), ACC32(32), ACC32(64), ACC32(96)
               : "l"(da), "l"(db), "r"(scale_d) : "memory");
}

// 64-bit smem matrix descriptor; lbo_enc / sbo_enc are the already-encoded (bytes >> 4) field values.
__device__ __forceinline__ uint64_t make_desc(uint32_t saddr, uint32_t lbo_enc, uint32_t sbo_enc) {
  uint64_t desc = 0;
  desc |= (uint64_t)((saddr & 0x3FFFFu) >> 4);        // bits  0-13: start address
  desc |= (uint64_t)(lbo_enc & 0x3FFFu) << 16;         // bits 16-29: leading-dimension byte offset
  desc |= (uint64_t)(sbo_enc & 0x3FFFu) << 32;         // bits 32-45: stride-dimension byte offset
  desc |= (uint64_t)1 << 62;                            // bits 62-63: 1 = 128-byte swizzle; base offset 0
  return desc;
}

__device__ __forceinline__ void fence_operand(float& r) { asm volatile("" : "+f"(r)::"memory"); }

constexpr uint32_t kTileABytes = 64 * 128;   // A[64][64] bf16
constexpr uint32_t kPanel = 64 * 128;        // one 64-wide N panel of B, K = 64 rows of storage

template <char V, int N, int K>
__global__ void __launch_bounds__(128, 1)
probe_kernel(const uint16_t* __restrict__ A, const uint16_t* __restrict__ B, float* __restrict__ D,
             unsigned long long* __restrict__ dbg) {
#if !defined(__CUDA_ARCH_FEAT_SM90_ALL)
  // nvcc 13 also emits portable compute_90 PTX for -arch=sm_90a; wgmma is illegal there. On an H200
  // the sm_90a cubin is chosen, so this stub only runs if that cubin was not used: flag it.
  if (threadIdx.x == 0) dbg[3] = 1;
#else
  extern __shared__ __align__(1024) uint8_t smem_raw[];
  const uint32_t raw = (uint32_t)__cvta_generic_to_shared(smem_raw);
  const uint32_t base = (raw + 1023u) & ~1023u;
  uint8_t* sA = smem_raw + (base - raw);
  uint8_t* sB = sA + kTileABytes;
  const uint32_t addrA = base, addrB = base + kTileABytes;
  const int t = threadIdx.x;

  // ---- fill shared memory with plain generic-proxy stores
  for (int idx = t; idx < 64 * 64; idx += 128) {
    const int m = idx >> 6, k = idx & 63;
    const uint32_t off = m * 128 + ((((k >> 3) ^ (m & 7))) << 4) + (k & 7) * 2;
    *reinterpret_cast<uint16_t*>(sA + off) = A[idx];
  }
  for (int idx = t; idx < 64 * N; idx += 128) {
    const int k = idx / N, n = idx % N;
    const uint32_t inatom = ((((n & 63) >> 3) ^ (k & 7)) << 4) + (n & 7) * 2;
    uint32_t off;
    if constexpr (V == 'b') off = ((n >> 6) + (k >> 3) * (N / 64)) * 1024 + (k & 7) * 128 + inatom;
    else                    off = (n >> 6) * kPanel + k * 128 + inatom;
    *reinterpret_cast<uint16_t*>(sB + off) = B[idx];
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();

  float acc[N / 2];
#pragma unroll
  for (int i = 0; i < N / 2; ++i) { acc[i] = 0.f; fence_operand(acc[i]); }

  uint64_t da0 = 0, db0 = 0;  // step-0 descriptors, reported on FAIL (written after the wait)
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
  for (int s = 0; s < K / 16; ++s) {
    const uint64_t da = make_desc(addrA + 32 * s, 1, 1024 >> 4);
    uint64_t db = 0;
    if constexpr (V == 'a') {
      db = make_desc(addrB + 2048 * s, kPanel >> 4, 1024 >> 4);
      wgmma_ss<N>(acc, da, db, s > 0);
    } else if constexpr (V == 'b') {
      constexpr uint32_t SBO = (N / 64) * 1024;
      db = make_desc(addrB + 2 * SBO * s, 1024 >> 4, SBO >> 4);
      wgmma_ss<N>(acc, da, db, s > 0);
    } else if constexpr (V == 'c') {
      db = make_desc(addrB + 2048 * s, 1024 >> 4, kPanel >> 4);
      wgmma_ss<N>(acc, da, db, s > 0);
    } else {  // 'd'
#pragma unroll
      for (int p = 0; p < N / 64; ++p) {
        const uint64_t dbp = make_desc(addrB + kPanel * p + 2048 * s, kPanel >> 4, 1024 >> 4);
        if (p == 0) db = dbp;
        wgmma_ss<64>(acc + 32 * p, da, dbp, s > 0);
      }
    }
    if (s == 0) { da0 = da; db0 = db; }
  }
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
#pragma unroll
  for (int i = 0; i < N / 2; ++i) fence_operand(acc[i]);
  if (t == 0) { dbg[0] = da0; dbg[1] = db0; dbg[2] = base; }

  // ---- accumulator fragment -> D (variant d: panel p holds registers 32p..32p+31, cols 64p..)
  const int w = t / 32, lane = t % 32;
#pragma unroll
  for (int j = 0; j < N / 2; ++j) {
    const int i = (V == 'd') ? (j & 31) : j;
    const int col0 = (V == 'd') ? 64 * (j >> 5) : 0;
    const int row = 16 * w + lane / 4 + 8 * ((i >> 1) & 1);
    const int col = col0 + 8 * (i >> 2) + 2 * (lane % 4) + (i & 1);
    D[row * N + col] = acc[j];
  }
#endif
}

// ----------------------------------------------------------------------------------------------
// Host side
// ----------------------------------------------------------------------------------------------
typedef void (*LaunchFn)(const uint16_t*, const uint16_t*, float*, unsigned long long*);

template <char V, int N, int K>
static void launch(const uint16_t* A, const uint16_t* B, float* D, unsigned long long* dbg) {
  const int smem = 1024 + kTileABytes + (N / 64) * kPanel;  // alignment slack + A + B (K=64 rows)
  CHECK(cudaFuncSetAttribute(probe_kernel<V, N, K>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  probe_kernel<V, N, K><<<1, 128, smem>>>(A, B, D, dbg);
}

struct Variant { char v; int N, K; LaunchFn fn; };
#define ENTRY(V, N, K) { V, N, K, &launch<V, N, K> }
static const Variant kVariants[] = {
  ENTRY('a', 64, 16), ENTRY('a', 128, 16), ENTRY('a', 256, 16),
  ENTRY('a', 64, 64), ENTRY('a', 128, 64), ENTRY('a', 256, 64),
  ENTRY('b', 64, 16), ENTRY('b', 128, 16), ENTRY('b', 256, 16),
  ENTRY('b', 64, 64), ENTRY('b', 128, 64), ENTRY('b', 256, 64),
  ENTRY('c', 64, 16), ENTRY('c', 128, 16), ENTRY('c', 256, 16),
  ENTRY('c', 64, 64), ENTRY('c', 128, 64), ENTRY('c', 256, 64),
  ENTRY('d', 128, 16), ENTRY('d', 256, 16),
  ENTRY('d', 128, 64), ENTRY('d', 256, 64),
};
static const int kNumVariants = (int)(sizeof(kVariants) / sizeof(kVariants[0]));

// Deterministic pseudo-random small integers in [-7, 7]: exact in bf16, all sums exact in fp32,
// and (unlike short-period patterns) a wrongly addressed element almost never has the same value.
static int small_int(uint32_t x) {
  x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
  return (int)(x % 15u) - 7;
}
static uint16_t to_bf16_bits(float f) {  // exact for small integers (low 16 bits are zero)
  uint32_t u; memcpy(&u, &f, 4); return (uint16_t)(u >> 16);
}

static int run_one(int idx) {
  const Variant& V = kVariants[idx];
  const int N = V.N, K = V.K;
  snprintf(g_name, sizeof g_name, "variant %c N=%d K=%d", V.v, N, K);
  alarm(60);  // a hang kills this child; the parent reports it

  // Storage is always A[64][64] and B[64][N]; the product only uses k < K.
  std::vector<float> Af(64 * 64), Bf(64 * N), ref(64 * N, 0.f), got(64 * N);
  std::vector<uint16_t> Ah(64 * 64), Bh(64 * N);
  for (int m = 0; m < 64; ++m)
    for (int k = 0; k < 64; ++k) { Af[m * 64 + k] = (float)small_int(0x10000u + m * 64 + k); Ah[m * 64 + k] = to_bf16_bits(Af[m * 64 + k]); }
  for (int k = 0; k < 64; ++k)
    for (int n = 0; n < N; ++n) { Bf[k * N + n] = (float)small_int(0x80000u + k * 1024 + n); Bh[k * N + n] = to_bf16_bits(Bf[k * N + n]); }
  for (int m = 0; m < 64; ++m)
    for (int n = 0; n < N; ++n) {
      float s = 0.f;
      for (int k = 0; k < K; ++k) s += Af[m * 64 + k] * Bf[k * N + n];
      ref[m * N + n] = s;
    }

  uint16_t *dA, *dB; float* dD; unsigned long long* dDbg;
  CHECK(cudaMalloc(&dA, Ah.size() * 2));
  CHECK(cudaMalloc(&dB, Bh.size() * 2));
  CHECK(cudaMalloc(&dD, got.size() * 4));
  CHECK(cudaMalloc(&dDbg, 4 * sizeof(unsigned long long)));
  CHECK(cudaMemcpy(dA, Ah.data(), Ah.size() * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dB, Bh.data(), Bh.size() * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dD, 0xFF, got.size() * 4));  // NaN pattern: unwritten outputs show up as mismatches
  CHECK(cudaMemset(dDbg, 0, 4 * sizeof(unsigned long long)));
  V.fn(dA, dB, dD, dDbg);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  unsigned long long dbg[4];
  CHECK(cudaMemcpy(got.data(), dD, got.size() * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(dbg, dDbg, sizeof dbg, cudaMemcpyDeviceToHost));

  int bad = 0, fm = -1, fn = -1;
  std::vector<char> badRow(64, 0), badCol(N, 0);
  for (int m = 0; m < 64; ++m)
    for (int n = 0; n < N; ++n)
      if (!(got[m * N + n] == ref[m * N + n])) {
        if (bad++ == 0) { fm = m; fn = n; }
        badRow[m] = 1; badCol[n] = 1;
      }
  if (dbg[3] != 0) {
    printf("%s: FAIL (the non-sm_90a compute_90 PTX fallback ran instead of the sm_90a cubin)\n", g_name);
    bad = bad ? bad : 1;
  } else if (bad == 0) {
    printf("%s: PASS\n", g_name);
  } else {
    int nr = 0, nc = 0;
    for (char c : badRow) nr += c;
    for (char c : badCol) nc += c;
    printf("%s: FAIL (first mismatch at m=%d,n=%d: got %g want %g; %d/%d mismatches in %d rows, %d cols;"
           " descA=0x%016llx descB=0x%016llx smem_base=0x%llx)\n",
           g_name, fm, fn, got[fm * N + fn], ref[fm * N + fn], bad, 64 * N, nr, nc, dbg[0], dbg[1], dbg[2]);
  }
  fflush(stdout);
  cudaFree(dA); cudaFree(dB); cudaFree(dD); cudaFree(dDbg);
  return bad == 0 ? 0 : 1;
}

static int device_check() {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) { printf("no usable CUDA driver/device: %s (%s)\n", cudaGetErrorName(e), cudaGetErrorString(e)); return 77; }
  if (count == 0) { printf("no CUDA device present\n"); return 77; }
  cudaDeviceProp p;
  e = cudaGetDeviceProperties(&p, 0);
  if (e != cudaSuccess) { printf("cudaGetDeviceProperties failed: %s\n", cudaGetErrorName(e)); return 77; }
  printf("device 0: %s, sm_%d%d\n", p.name, p.major, p.minor);
  if (p.major != 9 || p.minor != 0) { printf("this probe needs an sm_90 (Hopper) GPU\n"); return 77; }
  return 0;
}

// Re-execute ourselves with the given arguments; returns the child's exit code, or -signal.
static int spawn_self(const char* a1, const char* a2) {
  fflush(stdout); fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) { perror("fork"); return -1000; }
  if (pid == 0) {
    execl("/proc/self/exe", "probe", a1, a2, (char*)nullptr);
    execl(g_argv0, g_argv0, a1, a2, (char*)nullptr);  // fallback if /proc/self/exe is unavailable
    perror("execl");
    _exit(127);
  }
  int st = 0;
  if (waitpid(pid, &st, 0) < 0) { perror("waitpid"); return -1000; }
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  if (WIFSIGNALED(st)) return -WTERMSIG(st);
  return -1000;
}

int main(int argc, char** argv) {
  g_argv0 = argv[0];
  if (argc >= 2 && strcmp(argv[1], "--check") == 0) return device_check();
  if (argc >= 3 && strcmp(argv[1], "--run") == 0) {
    const int idx = atoi(argv[2]);
    if (idx < 0 || idx >= kNumVariants) { printf("bad variant index %d\n", idx); return 3; }
    return run_one(idx);
  }

  const int chk = spawn_self("--check", nullptr);
  if (chk != 0) { printf("device check did not pass (code %d); exiting 77\n", chk); return 77; }
  printf("wgmma bf16 SS probe: A K-major SW128 (LBO=1,SBO=64 enc), B MN-major SW128, imm-trans-b=1\n"
         "  a=panel(LBO=PANEL,SBO=1024)  b=tile_to_shape(LBO=1024,SBO=N/64*1024)"
         "  c=panel with LBO/SBO swapped  d=panel, one n64 wgmma per panel\n");
  int pass = 0;
  for (int i = 0; i < kNumVariants; ++i) {
    char buf[16]; snprintf(buf, sizeof buf, "%d", i);
    const int rc = spawn_self("--run", buf);
    if (rc == 0) ++pass;
    else if (rc != 1 && rc != 2)
      printf("variant %c N=%d K=%d: FAIL (child %s %d)\n", kVariants[i].v, kVariants[i].N, kVariants[i].K,
             rc < 0 ? "killed by signal" : "exited with code", rc < 0 ? -rc : rc);
  }
  printf("summary: %d/%d variants PASS\n", pass, kNumVariants);
  return 0;
}
