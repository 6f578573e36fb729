/* Literal-only gzip (gzip_huffman.h). Each block of up to BLOCK bytes gets
 * its own Huffman code built from its byte counts, limited to deflate's 15
 * bits; the code lengths travel in the dynamic block header (RFC 1951
 * 3.2.7) without run-length symbols, which for a 128 KiB block costs under
 * 0.2%. A block whose Huffman coding would not beat storing it is stored. */
#include "codec/gzip_huffman.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/alloc.h"
#include "codec/codec.h"
#include "codec/fast_deflate.h"
#include "codec/huffman.h"

#define BLOCK (1u << 17)
#define N_LIT 257 /* bytes and end-of-block; no lengths are ever coded */
#define N_CL 19
#define MAX_STORED 65535u

/* ---- one block's plan ------------------------------------------------- */

static const uint8_t cl_order[N_CL] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};

typedef struct plan {
  uint8_t lit_len[N_LIT];
  uint16_t lit_code[N_LIT];
  uint8_t cl_len[N_CL];
  uint16_t cl_code[N_CL];
  int hclen; /* code length code lengths sent, 4..19 */
  uint64_t bits; /* the whole block, header included */
} plan;

static void plan_counts(plan *p, const uint32_t *freq) {
  hudi_huffman_lengths(freq, N_LIT, 15, p->lit_len);
  hudi_huffman_codes(p->lit_len, N_LIT, p->lit_code);
  /* The code length sequence: the literal lengths, then two distance
   * codes of length 1 (none is used; zlib sends two as well). */
  uint32_t clf[N_CL] = {0};
  for (int s = 0; s < N_LIT; s++) clf[p->lit_len[s]]++;
  clf[1] += 2;
  hudi_huffman_lengths(clf, N_CL, 7, p->cl_len);
  hudi_huffman_codes(p->cl_len, N_CL, p->cl_code);
  p->hclen = N_CL;
  while (p->hclen > 4 && p->cl_len[cl_order[p->hclen - 1]] == 0) p->hclen--;
  uint64_t bits = 3 + 5 + 5 + 4 + 3 * (uint64_t)p->hclen;
  for (int v = 0; v < N_CL; v++) bits += (uint64_t)clf[v] * p->cl_len[v];
  for (int s = 0; s < N_LIT; s++) bits += (uint64_t)freq[s] * p->lit_len[s];
  p->bits = bits;
}

static void count_bytes(const uint8_t *src, size_t n, uint32_t *freq) {
  hudi_byte_counts c;
  memset(&c, 0, sizeof c);
  hudi_byte_counts_add(&c, src, n);
  hudi_byte_counts_sum(&c, freq);
  freq[256] = 1;
}

static uint64_t stored_bits(size_t n) {
  size_t chunks = n ? (n + MAX_STORED - 1) / MAX_STORED : 1;
  return (uint64_t)chunks * (3 + 7 + 32) + 8 * (uint64_t)n;
}

static void emit_stored(hudi_bitw *w, const uint8_t *src, size_t n, bool final) {
  do {
    size_t k = n < MAX_STORED ? n : MAX_STORED;
    hudi_bitw_put(w, (final && k == n) ? 1u : 0u, 3);
    hudi_bitw_align(w);
    w->p[0] = (uint8_t)k;
    w->p[1] = (uint8_t)(k >> 8);
    w->p[2] = (uint8_t)~k;
    w->p[3] = (uint8_t)(~k >> 8);
    memcpy(w->p + 4, src, k);
    w->p += 4 + k;
    src += k;
    n -= k;
  } while (n > 0);
}

static void emit_huffman(hudi_bitw *w, const plan *p, const uint8_t *src, size_t n, bool final) {
  hudi_bitw_put(w, final ? 1u : 0u, 1);
  hudi_bitw_put(w, 2, 2); /* dynamic Huffman */
  hudi_bitw_put(w, N_LIT - 257, 5);
  hudi_bitw_put(w, 2 - 1, 5);
  hudi_bitw_put(w, (uint32_t)(p->hclen - 4), 4);
  for (int i = 0; i < p->hclen; i++) hudi_bitw_put(w, p->cl_len[cl_order[i]], 3);
  for (int s = 0; s < N_LIT; s++) hudi_bitw_put(w, p->cl_code[p->lit_len[s]], p->cl_len[p->lit_len[s]]);
  for (int d = 0; d < 2; d++) hudi_bitw_put(w, p->cl_code[1], p->cl_len[1]);
  /* code and length in one word: one load per byte */
  uint32_t tab[256];
  for (int s = 0; s < 256; s++) tab[s] = (uint32_t)p->lit_code[s] | (uint32_t)p->lit_len[s] << 16;
  size_t i = 0;
  for (; i + 2 <= n; i += 2) {
    /* two codes of at most 15 bits fit one call */
    uint32_t a = tab[src[i]], b = tab[src[i + 1]];
    unsigned la = a >> 16;
    hudi_bitw_put(w, (a & 0xffff) | (b & 0xffff) << la, la + (b >> 16));
  }
  for (; i < n; i++) hudi_bitw_put(w, tab[src[i]] & 0xffff, tab[src[i]] >> 16);
  hudi_bitw_put(w, p->lit_code[256], p->lit_len[256]);
}

/* ---- the matched prefix ------------------------------------------------ */

static voidpf z_alloc(voidpf opaque, uInt n, uInt size) {
  (void)opaque;
  return hudi_malloc(hudi_mul_size(n, size));
}

static void z_free(voidpf opaque, voidpf p) {
  (void)opaque;
  hudi_free(p);
}

/* Room zlib's level 6 may need for n bytes and a sync flush. */
static size_t prefix_room(size_t n) { return n ? n + n / 8 + 64 : 0; }

/* Raw deflate of src (level 6, with matching) ended by a sync flush: the
 * blocks are not final and end on a byte boundary, so literal blocks can
 * follow. Writes at most prefix_room(n) bytes at dst. */
static hudi_status deflate_prefix(const uint8_t *src, size_t n, uint8_t *dst, size_t *written, hudi_error *err) {
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  zs.zalloc = z_alloc;
  zs.zfree = z_free;
  int rc = deflateInit2(&zs, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
  if (rc == Z_MEM_ERROR) return hudi_err_set(err, HUDI_ERR_NOMEM, "out of memory starting gzip");
  if (rc != Z_OK) return hudi_err_set(err, HUDI_ERR_INTERNAL, "deflateInit2 failed (%d)", rc);
  size_t room = prefix_room(n);
  zs.next_in = (Bytef *)(uintptr_t)src;
  zs.avail_in = (uInt)n;
  zs.next_out = dst;
  zs.avail_out = (uInt)room;
  rc = deflate(&zs, Z_SYNC_FLUSH);
  bool ok = rc == Z_OK && zs.avail_in == 0 && zs.avail_out > 0;
  *written = room - zs.avail_out;
  deflateEnd(&zs);
  return ok ? HUDI_OK : hudi_err_set(err, HUDI_ERR_INTERNAL, "deflate of %zu bytes failed (%d)", n, rc);
}

/* ---- the gzip member -------------------------------------------------- */

hudi_status hudi_gzip_huffman(const uint8_t *src, size_t src_len, size_t matched, hudi_buf *out, hudi_error *err) {
  if (src_len > SIZE_MAX / 4) return hudi_err_set(err, HUDI_ERR_LIMIT, "gzip input of %zu bytes", src_len);
  if (matched > src_len || matched > UINT_MAX / 2) matched = 0;
  size_t rest = src_len - matched, blocks = rest / BLOCK + 1;
  /* The prefix's room; then never more than storing: per block at most
   * its bytes and 6 bytes per stored chunk; 10 + 8 bytes of framing; 8
   * bytes for the last store of the bit writer. */
  size_t bound = prefix_room(matched) + rest + 6 * (rest / MAX_STORED + blocks + 1) + 18 + 8;
  HUDI_TRY(hudi_buf_reserve(out, bound, err));
  uint8_t *start = out->data + out->len;
  static const uint8_t head[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff};
  memcpy(start, head, sizeof head);
  size_t zlen = 0;
  if (matched) HUDI_TRY(deflate_prefix(src, matched, start + sizeof head, &zlen, err));
  hudi_bitw w = {start + sizeof head + zlen, 0, 0};
  plan p;
  uint32_t freq[N_LIT];
  size_t pos = matched;
  do {
    size_t n = src_len - pos < BLOCK ? src_len - pos : BLOCK;
    bool final = pos + n == src_len;
    count_bytes(src + pos, n, freq);
    plan_counts(&p, freq);
    if (p.bits < stored_bits(n)) emit_huffman(&w, &p, src + pos, n, final);
    else emit_stored(&w, src + pos, n, final);
    pos += n;
  } while (pos < src_len);
  hudi_bitw_align(&w);
  uint32_t crc = hudi_fast_crc32(0, src, src_len), size = (uint32_t)src_len;
  for (int i = 0; i < 4; i++) w.p[i] = (uint8_t)(crc >> (8 * i));
  for (int i = 0; i < 4; i++) w.p[4 + i] = (uint8_t)(size >> (8 * i));
  w.p += 8;
  out->len += (size_t)(w.p - start);
  return HUDI_OK;
}

/* Bytes literal-only coding of src takes, header included. */
static uint64_t huffman_size(const uint8_t *src, size_t n) {
  uint32_t freq[N_LIT];
  plan p;
  count_bytes(src, n, freq);
  plan_counts(&p, freq);
  return (p.bits + 7) / 8;
}

#define SAMPLE (32u << 10)

hudi_status hudi_gzip_adaptive(const uint8_t *src, size_t src_len, size_t matched, hudi_buf *out,
                               hudi_error *err) {
  if (matched > src_len || src_len - matched < 2 * SAMPLE)
    return hudi_codec_compress(HUDI_CODEC_GZIP, 0, src, src_len, out, err);
  /* A sample from the middle of the rest: what the fastest matching level
   * makes of it against literals alone. The sample's level-1 output goes
   * where the page's will and is dropped. */
  const uint8_t *s = src + matched + (src_len - matched - SAMPLE) / 2;
  size_t before = out->len;
  HUDI_TRY(hudi_codec_compress(HUDI_CODEC_GZIP, 1, s, SAMPLE, out, err));
  uint64_t lz = out->len - before;
  out->len = before;
  uint64_t literal = huffman_size(s, SAMPLE) + 18;
  if (literal * 50 <= lz * 51) return hudi_gzip_huffman(src, src_len, matched, out, err);
  return hudi_codec_compress(HUDI_CODEC_GZIP, 0, src, src_len, out, err);
}
