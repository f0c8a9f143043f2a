// TMA fp32 -> tf32 conversion probe: what does a tensor map of type TFLOAT32 do to the bits it copies?
// Also checks a 3-D map whose outer dimension steps 32 bytes (B as 8-column panels).
#include <cuda.h>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <vector>
#define CK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char *s; cuGetErrorName(r_, &s); printf("%s:%d %s -> %s\n", __FILE__, __LINE__, #x, s); return 1; } } while (0)
#define CKR(x) do { cudaError_t r_ = (x); if (r_ != cudaSuccess) { printf("%s:%d %s -> %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(r_)); return 1; } } while (0)
#include <cuda_runtime.h>

// 2-D map: rows of 1024 elements; each CTA copies a 64 x 64 box and writes it back.
__global__ void copy2d(const __grid_constant__ CUtensorMap map, uint32_t *out, int rows_per_cta) {
  __shared__ alignas(128) uint32_t buf[64 * 64];
  __shared__ alignas(8) uint64_t bar;
  uint32_t sb = (uint32_t)__cvta_generic_to_shared(&bar), sbuf = (uint32_t)__cvta_generic_to_shared(buf);
  if (threadIdx.x == 0) { asm volatile("mbarrier.init.shared.b64 [%0], 1;" :: "r"(sb)); asm volatile("fence.proxy.async.shared::cta;"); }
  __syncthreads();
  uint32_t phase = 0;
  for (int t = 0; t < rows_per_cta / 64; t++) {
    int row0 = blockIdx.y * rows_per_cta + t * 64, col0 = blockIdx.x * 64;
    if (threadIdx.x == 0) {
      asm volatile("mbarrier.arrive.expect_tx.shared.b64 _, [%0], %1;" :: "r"(sb), "r"(64 * 64 * 4));
      asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                   :: "r"(sbuf), "l"(&map), "r"(col0), "r"(row0), "r"(sb) : "memory");
    }
    asm volatile("{ .reg .pred p; W: mbarrier.try_wait.parity.shared.b64 p, [%0], %1; @!p bra W; }" :: "r"(sb), "r"(phase) : "memory");
    phase ^= 1;
    for (int i = threadIdx.x; i < 64 * 64; i += blockDim.x)
      out[(size_t)(row0 + i / 64) * 1024 + col0 + i % 64] = buf[i];
    __syncthreads();
  }
}

// 3-D map: dims {8, K, N/8}, strides {N*4, 32}: box {8, 32, 32} lands as [panel][k][8].
__global__ void copy3d(const __grid_constant__ CUtensorMap map, uint32_t *out) {
  __shared__ alignas(128) uint32_t buf[32 * 32 * 8];
  __shared__ alignas(8) uint64_t bar;
  uint32_t sb = (uint32_t)__cvta_generic_to_shared(&bar), sbuf = (uint32_t)__cvta_generic_to_shared(buf);
  if (threadIdx.x == 0) { asm volatile("mbarrier.init.shared.b64 [%0], 1;" :: "r"(sb)); asm volatile("fence.proxy.async.shared::cta;"); }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared.b64 _, [%0], %1;" :: "r"(sb), "r"(32 * 32 * 8 * 4));
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];"
                 :: "r"(sbuf), "l"(&map), "r"(0), "r"(32 * blockIdx.y), "r"(32 * blockIdx.x), "r"(sb) : "memory");
  }
  asm volatile("{ .reg .pred p; W: mbarrier.try_wait.parity.shared.b64 p, [%0], %1; @!p bra W; }" :: "r"(sb), "r"(0) : "memory");
  for (int i = threadIdx.x; i < 32 * 32 * 8; i += blockDim.x) out[((size_t)blockIdx.y * gridDim.x + blockIdx.x) * 8192 + i] = buf[i];
}

static uint32_t rna(uint32_t x) { return ((x >> 23) & 0xff) == 0xff ? (x & 0xFFFFE000u) : ((x + 0x1000u) & 0xFFFFE000u); }
static uint32_t rne(uint32_t x) { return ((x & 0x7fffffffu) > 0x7f800000u) ? 0x7FFFE000u : ((x + 0xFFFu + ((x >> 13) & 1)) & 0xFFFFE000u); }
static uint32_t rz(uint32_t x) { return ((x & 0x7fffffffu) > 0x7f800000u) ? 0x7FFFE000u : (x & 0xFFFFE000u); }
static uint32_t ftz(uint32_t x) { return ((x >> 23) & 0xff) == 0 ? (x & 0x80000000u) : x; }

int main() {
  CK(cuInit(0));
  CUdevice dev; CK(cuDeviceGet(&dev, 0));
  CUcontext ctx; CK(cuDevicePrimaryCtxRetain(&ctx, dev)); CK(cuCtxSetCurrent(ctx));
  const size_t COLS = 1024, ROWS = 1 << 18, N = COLS * ROWS; // 2^28 patterns per chunk, 16 chunks
  uint32_t *din, *dout; CKR(cudaMalloc(&din, N * 4)); CKR(cudaMalloc(&dout, N * 4));
  std::vector<uint32_t> h(N), o(N);
  const char *names[] = {"FLOAT32", "TFLOAT32", "TFLOAT32_FTZ"};
  CUtensorMapDataType types[] = {CU_TENSOR_MAP_DATA_TYPE_FLOAT32, CU_TENSOR_MAP_DATA_TYPE_TFLOAT32, CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ};
  for (int ti = 0; ti < 3; ti++) {
    CUtensorMap map;
    cuuint64_t dims[2] = {COLS, ROWS}, strides[1] = {COLS * 4};
    cuuint32_t box[2] = {64, 64}, es[2] = {1, 1};
    CK(cuTensorMapEncodeTiled(&map, types[ti], 2, din, dims, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                              CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    // counts of matches against each rule, and first mismatches of the best rule
    uint64_t same = 0, m_rna = 0, m_rne = 0, m_rz = 0, m_rna_ftz = 0, m_rne_ftz = 0, m_rz_ftz = 0, total = 0;
    int shown = 0;
    int chunks = ti == 0 ? 1 : 16;
    for (int c = 0; c < chunks; c++) {
      #pragma omp parallel for
      for (size_t i = 0; i < N; i++) h[i] = (uint32_t)(((uint64_t)c << 28) | i);
      CKR(cudaMemcpy(din, h.data(), N * 4, cudaMemcpyHostToDevice));
      CKR(cudaMemset(dout, 0xAB, N * 4));
      copy2d<<<dim3(COLS / 64, ROWS / 4096), 256>>>(map, dout, 4096);
      CKR(cudaGetLastError()); CKR(cudaDeviceSynchronize());
      CKR(cudaMemcpy(o.data(), dout, N * 4, cudaMemcpyDeviceToHost));
      #pragma omp parallel for reduction(+:total,same,m_rna,m_rne,m_rz,m_rna_ftz,m_rne_ftz,m_rz_ftz)
      for (size_t i = 0; i < N; i++) {
        uint32_t x = h[i], y = o[i];
        total++; same += y == x; m_rna += y == rna(x); m_rne += y == rne(x); m_rz += y == rz(x);
        m_rna_ftz += y == rna(ftz(x)); m_rne_ftz += y == rne(ftz(x)); m_rz_ftz += y == rz(ftz(x));
      }
      for (size_t i = 0; i < N && shown < 12; i++) { uint32_t x = h[i], y = o[i];
        if (ti > 0 && y != rne(x) && y != rna(x) && y != rz(x)) { printf("  %s x=%08x got=%08x rne=%08x rna=%08x\n", names[ti], x, y, rne(x), rna(x)); shown++; } }
    }
    printf("%s: %llu inputs; equal to input %llu, rna %llu, rne %llu, rz %llu, rna(ftz) %llu, rne(ftz) %llu, rz(ftz) %llu\n", names[ti],
           (unsigned long long)total, (unsigned long long)same, (unsigned long long)m_rna, (unsigned long long)m_rne, (unsigned long long)m_rz,
           (unsigned long long)m_rna_ftz, (unsigned long long)m_rne_ftz, (unsigned long long)m_rz_ftz);
    // tie cases only
    uint64_t ties = 0, t_rne = 0, t_rna = 0;
    for (size_t i = 0; i < N; i++) if ((h[i] & 0x1fff) == 0x1000 && ((h[i] >> 23) & 0xff) != 0xff && ((h[i] >> 23) & 0xff) != 0) { ties++; t_rne += o[i] == rne(h[i]); t_rna += o[i] == rna(h[i]); }
    printf("  last chunk ties: %llu, rne %llu, rna %llu\n", (unsigned long long)ties, (unsigned long long)t_rne, (unsigned long long)t_rna);
  }
  // 3-D panel map over a K x N matrix (K = 64, N = 256 + 16 so the row pitch is not a power of two)
  {
    const size_t K = 64, NN = 272;
    std::vector<uint32_t> b(K * NN);
    for (size_t i = 0; i < b.size(); i++) b[i] = (uint32_t)i;
    CKR(cudaMemcpy(din, b.data(), b.size() * 4, cudaMemcpyHostToDevice));
    CUtensorMap map;
    cuuint64_t dims[3] = {8, K, NN / 8}, strides[2] = {NN * 4, 32};
    cuuint32_t box[3] = {8, 32, 32}, es[3] = {1, 1, 1};
    CUresult r = cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 3, din, dims, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                        CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    const char *s = ""; cuGetErrorName(r, &s);
    printf("3-D panel map encode: %s\n", s);
    if (r == CUDA_SUCCESS) {
      CKR(cudaMemset(dout, 0xFF, 4 * 8192 * 4));
      copy3d<<<dim3(2, 2), 128>>>(map, dout);  // blockIdx.x: panel group (32 panels = 256 columns), y: k block
      CKR(cudaGetLastError()); CKR(cudaDeviceSynchronize());
      std::vector<uint32_t> ob(4 * 8192);
      CKR(cudaMemcpy(ob.data(), dout, ob.size() * 4, cudaMemcpyDeviceToHost));
      size_t bad = 0, oob_zero = 0, checked = 0;
      for (int by = 0; by < 2; by++) for (int bx = 0; bx < 2; bx++)
        for (int p = 0; p < 32; p++) for (int k = 0; k < 32; k++) for (int n = 0; n < 8; n++) {
          size_t kk = by * 32 + k, col = (bx * 32 + p) * 8 + n;
          uint32_t got = ob[((size_t)by * 2 + bx) * 8192 + (p * 32 + k) * 8 + n];
          if (col >= NN) { oob_zero += got == 0; continue; }
          checked++;
          if (got != b[kk * NN + col]) { if (bad < 5) printf("  panel mismatch by%d bx%d p%d k%d n%d got %u want %u\n", by, bx, p, k, n, got, b[kk * NN + col]); bad++; }
        }
      printf("3-D panel map: %zu checked, %zu wrong, out-of-range columns zero-filled %zu\n", checked, bad, oob_zero);
    }
  }
  printf("done\n");
  return 0;
}
