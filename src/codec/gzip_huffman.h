/* gzip for data where LZ77 matching finds nothing: float vectors, hashes,
 * random ids. There a deflate compressor at any level spends nearly all
 * its time searching for matches that are not there (libdeflate level 6:
 * ~85 MB/s on float32 embeddings, 0.926 of the input), while coding each
 * byte with a Huffman code of the page's byte frequencies gives the same
 * size (0.925) at several times the speed. The output is ordinary gzip
 * (RFC 1952 framing around RFC 1951 dynamic-Huffman blocks that hold only
 * literals; stored blocks where even that does not pay), which every
 * inflater reads; only the search effort differs from zlib's level 6. */
#ifndef HUDI_CODEC_GZIP_HUFFMAN_H
#define HUDI_CODEC_GZIP_HUFFMAN_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/error.h"

/* Appends the gzip member of src: its first `matched` bytes deflated with
 * matching (zlib level 6, for a Parquet v1 page's repetition and
 * definition levels, which repeat), the rest with literals only (Huffman,
 * or stored blocks where Huffman would be larger). */
HUDI_NODISCARD hudi_status hudi_gzip_huffman(const uint8_t *src, size_t src_len, size_t matched, hudi_buf *out,
                                             hudi_error *err);

/* Appends the gzip member of src, choosing how: from a sample of the bytes
 * after the first `matched`, when literal-only coding comes within 2% of
 * libdeflate's fastest level with matching, hudi_gzip_huffman; otherwise
 * the codec's default gzip (hudi_codec_compress, level 6). Small inputs
 * always take the default. */
HUDI_NODISCARD hudi_status hudi_gzip_adaptive(const uint8_t *src, size_t src_len, size_t matched, hudi_buf *out,
                                              hudi_error *err);

#endif
