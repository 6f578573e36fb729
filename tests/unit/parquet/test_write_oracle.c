/* The encoders, compressors, page writer and metadata encoder against
 * pyarrow: this test writes Parquet files by hand with hudi-c (every
 * encoding, every codec, v1 and v2 pages, a dictionary, nulls), has pyarrow
 * read them (tests/parquet/make_files.py --dump) and requires pyarrow's
 * view of footer and values to equal what was written. hudi-c's own reader
 * must agree too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parquet/column_reader.h"
#include "parquet/encoding.h"
#include "parquet/metadata.h"
#include "parquet/page_writer.h"
#include "parquet/pq_dump.h"

#define OUT_DIR "parquet_written"
#define ROWS 2500
#define PAGE_ROWS 1000
#define NCOLS 9

typedef struct colspec {
  const char *name;
  hudi_pq_type type;
  int32_t type_length;
  int converted; /* -1: none */
  bool optional;
} colspec;

static const colspec cols[NCOLS] = {
    {"i32", HUDI_PQ_INT32, 0, -1, true},       {"i64", HUDI_PQ_INT64, 0, -1, false},
    {"f32", HUDI_PQ_FLOAT, 0, -1, true},       {"f64", HUDI_PQ_DOUBLE, 0, -1, false},
    {"str", HUDI_PQ_BYTE_ARRAY, 0, 0, true},   {"bin", HUDI_PQ_BYTE_ARRAY, 0, -1, false},
    {"flba", HUDI_PQ_FIXED_LEN_BYTE_ARRAY, 5, -1, true}, {"b", HUDI_PQ_BOOLEAN, 0, -1, true},
    {"i96", HUDI_PQ_INT96, 0, -1, true}};

/* One file: an encoding per column (-1: dictionary), codec, page version. */
typedef struct variant {
  const char *name;
  int32_t enc[NCOLS];
  hudi_pq_codec codec;
  bool v2;
  int cardinality; /* distinct values per column, 0 for all different */
} variant;

#define P HUDI_PQ_ENC_PLAIN
#define D (-1)
static const variant variants[] = {
    {"plain_v1_none", {P, P, P, P, P, P, P, P, P}, HUDI_PQ_CODEC_UNCOMPRESSED, false, 0},
    {"plain_v2_snappy", {P, P, P, P, P, P, P, P, P}, HUDI_PQ_CODEC_SNAPPY, true, 0},
    {"dict_v1_gzip", {D, D, D, D, D, D, D, HUDI_PQ_ENC_RLE, D}, HUDI_PQ_CODEC_GZIP, false, 37},
    {"dict_v2_zstd", {D, D, D, D, D, D, D, HUDI_PQ_ENC_RLE, D}, HUDI_PQ_CODEC_ZSTD, true, 200},
    {"delta_v2_zstd",
     {HUDI_PQ_ENC_DELTA_BINARY_PACKED, HUDI_PQ_ENC_DELTA_BINARY_PACKED, P, P, HUDI_PQ_ENC_DELTA_LENGTH_BYTE_ARRAY,
      HUDI_PQ_ENC_DELTA_BYTE_ARRAY, HUDI_PQ_ENC_DELTA_BYTE_ARRAY, HUDI_PQ_ENC_RLE, P},
     HUDI_PQ_CODEC_ZSTD, true, 0},
    {"delta_v1_lz4",
     {HUDI_PQ_ENC_DELTA_BINARY_PACKED, HUDI_PQ_ENC_DELTA_BINARY_PACKED, P, P, HUDI_PQ_ENC_DELTA_BYTE_ARRAY,
      HUDI_PQ_ENC_DELTA_LENGTH_BYTE_ARRAY, P, P, P},
     HUDI_PQ_CODEC_LZ4_RAW, false, 0},
    {"bss_v1_snappy",
     {HUDI_PQ_ENC_BYTE_STREAM_SPLIT, HUDI_PQ_ENC_BYTE_STREAM_SPLIT, HUDI_PQ_ENC_BYTE_STREAM_SPLIT,
      HUDI_PQ_ENC_BYTE_STREAM_SPLIT, P, P, HUDI_PQ_ENC_BYTE_STREAM_SPLIT, P, P},
     HUDI_PQ_CODEC_SNAPPY, false, 0},
    {"bss_v2_gzip",
     {HUDI_PQ_ENC_BYTE_STREAM_SPLIT, HUDI_PQ_ENC_BYTE_STREAM_SPLIT, HUDI_PQ_ENC_BYTE_STREAM_SPLIT,
      HUDI_PQ_ENC_BYTE_STREAM_SPLIT, D, P, HUDI_PQ_ENC_BYTE_STREAM_SPLIT, HUDI_PQ_ENC_RLE, D},
     HUDI_PQ_CODEC_GZIP, true, 0},
};

static uint64_t rng;
static uint64_t rnd(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

/* A column's data in the flat form. */
typedef struct coldata {
  int16_t def[ROWS];
  size_t nvalues;
  hudi_buf values;
  int32_t offsets[ROWS + 1];
} coldata;

static void make_column(coldata *c, const colspec *s, int card) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_buf_init(&c->values, 0);
  c->offsets[0] = 0;
  c->nvalues = 0;
  for (size_t r = 0; r < ROWS; r++) {
    c->def[r] = (int16_t)(!s->optional || rnd() % 9 != 0);
    if (!c->def[r]) continue;
    uint64_t x = card ? (rnd() % (uint64_t)card) * 0x9e3779b97f4a7c15ull : rnd();
    uint8_t tmp[12];
    size_t w = hudi_pq_value_size(s->type, s->type_length);
    switch (s->type) {
      case HUDI_PQ_INT32: { int32_t v = (int32_t)(x >> 32); memcpy(tmp, &v, 4); break; }
      case HUDI_PQ_INT64: memcpy(tmp, &x, 8); break;
      case HUDI_PQ_FLOAT: { float v = (float)(int32_t)(x >> 40) / 7.0f; memcpy(tmp, &v, 4); break; }
      case HUDI_PQ_DOUBLE: { double v = (double)(int64_t)(x >> 12) / 3.0; memcpy(tmp, &v, 8); break; }
      case HUDI_PQ_BOOLEAN: tmp[0] = (uint8_t)((x >> 33) & 1); break;
      case HUDI_PQ_INT96: {
        /* nanoseconds of the day, then the Julian day */
        int64_t nanos = (int64_t)((x >> 8) % 86400000000000ull);
        int32_t day = 2440588 + (int32_t)((x >> 50) % 20000);
        memcpy(tmp, &nanos, 8);
        memcpy(tmp + 8, &day, 4);
        break;
      }
      case HUDI_PQ_FIXED_LEN_BYTE_ARRAY: for (size_t k = 0; k < w; k++) tmp[k] = (uint8_t)(x >> (8 * k)); break;
      case HUDI_PQ_BYTE_ARRAY: {
        /* Shared prefixes exercise DELTA_BYTE_ARRAY; lengths vary from 0. */
        assert_int_equal(hudi_buf_printf(&c->values, &err, "%.*s%llx", (int)((x >> 60) % 12),
                                         "hudi/partition/", (unsigned long long)(x % 100000)), HUDI_OK);
        if (x % 13 == 0) c->values.len = (size_t)c->offsets[c->nvalues]; /* the empty string */
        c->offsets[++c->nvalues] = (int32_t)c->values.len;
        continue;
      }
    }
    assert_int_equal(hudi_buf_append(&c->values, tmp, w, &err), HUDI_OK);
    c->nvalues++;
  }
}

/* Dictionary of a column (naive search: cardinalities are small). */
static void build_dictionary(const coldata *c, const colspec *s, hudi_buf *dict, int32_t *doff, uint32_t *ndict,
                             uint32_t *idx) {
  hudi_error err = HUDI_ERROR_INIT;
  size_t w = hudi_pq_value_size(s->type, s->type_length);
  int ba = s->type == HUDI_PQ_BYTE_ARRAY;
  *ndict = 0;
  doff[0] = 0;
  for (size_t i = 0; i < c->nvalues; i++) {
    const uint8_t *v = c->values.data + (ba ? (size_t)c->offsets[i] : i * w);
    size_t l = ba ? (size_t)(c->offsets[i + 1] - c->offsets[i]) : w;
    uint32_t k = 0;
    for (; k < *ndict; k++) {
      size_t dl = ba ? (size_t)(doff[k + 1] - doff[k]) : w;
      const uint8_t *dv = dict->data + (ba ? (size_t)doff[k] : k * w);
      if (dl == l && (l == 0 || memcmp(dv, v, l) == 0)) break;
    }
    if (k == *ndict) {
      if (l) assert_int_equal(hudi_buf_append(dict, v, l, &err), HUDI_OK);
      doff[++*ndict] = (int32_t)dict->len;
    }
    idx[i] = k;
  }
}

static void write_file(const variant *var, const char *path, coldata *data) {
  hudi_error err = HUDI_ERROR_INIT;
  hudi_buf f;
  hudi_buf_init(&f, 0);
  assert_int_equal(hudi_buf_append(&f, "PAR1", 4, &err), HUDI_OK);
  hudi_pq_column_chunk chunks[NCOLS];
  memset(chunks, 0, sizeof chunks);
  int32_t encs[NCOLS][3];
  char *paths[NCOLS][1];
  int64_t total_bytes = 0;
  for (int ci = 0; ci < NCOLS; ci++) {
    const colspec *s = &cols[ci];
    coldata *c = &data[ci];
    hudi_pq_column_meta *m = &chunks[ci].meta;
    chunks[ci].has_meta_data = true;
    int32_t enc = var->enc[ci];
    int dict = enc == D;
    int ba = s->type == HUDI_PQ_BYTE_ARRAY;
    size_t w = hudi_pq_value_size(s->type, s->type_length);
    hudi_buf dvals;
    hudi_buf_init(&dvals, 0);
    int32_t *doff = malloc(sizeof(int32_t) * (ROWS + 1));
    uint32_t *idx = malloc(sizeof(uint32_t) * (ROWS + 1));
    uint32_t ndict = 0;
    int64_t start = (int64_t)f.len;
    if (dict) {
      build_dictionary(c, s, &dvals, doff, &ndict, idx);
      m->has_dictionary_page_offset = true;
      m->dictionary_page_offset = start;
      assert_int_equal(hudi_pq_dictionary_page_write(&f, s->type, s->type_length, dvals.data, doff, ndict,
                                                     var->codec, &m->total_uncompressed_size,
                                                     &m->total_compressed_size, &err), HUDI_OK);
    }
    m->data_page_offset = (int64_t)f.len;
    size_t vpos = 0;
    for (size_t r0 = 0; r0 < ROWS; r0 += PAGE_ROWS) {
      size_t nr = ROWS - r0 < PAGE_ROWS ? ROWS - r0 : PAGE_ROWS;
      size_t nv = 0;
      for (size_t r = r0; r < r0 + nr; r++) nv += (size_t)c->def[r];
      hudi_pq_page_input in = {.type = s->type, .type_length = s->type_length, .max_def = s->optional ? 1 : 0,
                               .num_levels = nr, .def_levels = s->optional ? c->def + r0 : NULL,
                               .num_values = nv, .v2 = var->v2, .num_rows = (int32_t)nr, .codec = var->codec};
      /* Byte arrays: offsets of this page's values, rebased to 0. */
      int32_t *off = malloc(sizeof(int32_t) * (nv + 1));
      if (dict) {
        in.encoding = HUDI_PQ_ENC_RLE_DICTIONARY;
        in.values = idx + vpos;
        in.dict_size = ndict;
      } else {
        in.encoding = enc;
        if (ba) {
          for (size_t k = 0; k <= nv; k++) off[k] = c->offsets[vpos + k] - c->offsets[vpos];
          in.values = c->values.data ? c->values.data + c->offsets[vpos] : NULL;
          in.offsets = off;
        } else {
          in.values = c->values.data + vpos * w;
        }
      }
      assert_int_equal(hudi_pq_data_page_write(&f, &in, &m->total_uncompressed_size, &m->total_compressed_size,
                                               &err), HUDI_OK);
      free(off);
      vpos += nv;
    }
    hudi_buf_free(&dvals);
    free(doff);
    free(idx);
    m->type = s->type;
    uint32_t ne = 0;
    if (dict) encs[ci][ne++] = HUDI_PQ_ENC_PLAIN;
    encs[ci][ne++] = dict ? HUDI_PQ_ENC_RLE_DICTIONARY : enc;
    encs[ci][ne++] = HUDI_PQ_ENC_RLE;
    m->encodings = encs[ci];
    m->num_encodings = ne;
    paths[ci][0] = (char *)s->name;
    m->path_in_schema = paths[ci];
    m->path_len = 1;
    m->codec = var->codec;
    m->num_values = ROWS;
    chunks[ci].file_offset = start;
    total_bytes += m->total_uncompressed_size;
  }
  hudi_pq_schema_element schema[NCOLS + 1];
  memset(schema, 0, sizeof schema);
  schema[0].name = "schema";
  schema[0].has_num_children = true;
  schema[0].num_children = NCOLS;
  for (int ci = 0; ci < NCOLS; ci++) {
    hudi_pq_schema_element *e = &schema[ci + 1];
    e->name = (char *)cols[ci].name;
    e->has_type = true;
    e->type = cols[ci].type;
    e->has_repetition = true;
    e->repetition = cols[ci].optional ? HUDI_PQ_OPTIONAL : HUDI_PQ_REQUIRED;
    if (cols[ci].type_length) {
      e->has_type_length = true;
      e->type_length = cols[ci].type_length;
    }
    if (cols[ci].converted >= 0) {
      e->has_converted_type = true;
      e->converted_type = cols[ci].converted;
      e->logical.kind = HUDI_PQ_LT_STRING;
    }
  }
  hudi_pq_row_group rg = {.columns = chunks, .num_columns = NCOLS, .total_byte_size = total_bytes,
                          .num_rows = ROWS};
  hudi_pq_key_value kv = {.key = "written.by", .value = "hudi-c test_write_oracle", .value_len = 24};
  hudi_pq_file_meta fm = {.version = 2, .schema = schema, .num_schema = NCOLS + 1, .num_rows = ROWS,
                          .row_groups = &rg, .num_row_groups = 1, .has_key_value = true, .key_value = &kv,
                          .num_key_value = 1, .created_by = "hudi-c test"};
  size_t fstart = f.len;
  assert_int_equal(hudi_pq_file_meta_encode(&f, &fm, &err), HUDI_OK);
  uint32_t flen = (uint32_t)(f.len - fstart);
  uint8_t tail[8] = {(uint8_t)flen, (uint8_t)(flen >> 8), (uint8_t)(flen >> 16), (uint8_t)(flen >> 24),
                     'P', 'A', 'R', '1'};
  assert_int_equal(hudi_buf_append(&f, tail, 8, &err), HUDI_OK);
  FILE *fp = fopen(path, "wb");
  assert_non_null(fp);
  assert_int_equal(fwrite(f.data, 1, f.len, fp), f.len);
  fclose(fp);
  hudi_buf_free(&f);
}

/* The dump of what we wrote, in make_files.py's format. */
static void expected_values(hudi_buf *b, coldata *data) {
  hudi_error err = HUDI_ERROR_INIT;
  for (int ci = 0; ci < NCOLS; ci++) {
    hudi_pq_schema_element e = {.has_type_length = cols[ci].type_length != 0};
    hudi_pq_leaf leaf = {.type = cols[ci].type, .type_length = cols[ci].type_length,
                         .max_def = cols[ci].optional ? 1 : 0, .element = &e};
    hudi_pq_column_data d;
    hudi_pq_column_data_init(&d);
    d.num_levels = ROWS;
    d.num_values = data[ci].nvalues;
    d.values = data[ci].values; /* borrowed */
    assert_int_equal(hudi_buf_append(&d.def_levels, data[ci].def, sizeof data[ci].def, &err), HUDI_OK);
    assert_int_equal(hudi_buf_append(&d.offsets, data[ci].offsets, sizeof(int32_t) * (data[ci].nvalues + 1), &err),
                     HUDI_OK);
    dump_chunk(b, 0, (uint32_t)ci, &leaf, &d);
    hudi_buf_free(&d.def_levels);
    hudi_buf_free(&d.offsets);
  }
}

/* hudi-c's own reading of the file, in the same format. */
static void our_view(hudi_buf *values, hudi_buf *meta, const char *path) {
  size_t size;
  uint8_t *file = slurp(path, &size);
  assert_non_null(file);
  hudi_error err = HUDI_ERROR_INIT;
  hudi_pq_arena a;
  hudi_pq_arena_init(&a, 0);
  hudi_pq_file_meta m;
  if (hudi_pq_file_meta_parse_file(&m, &a, file, size, &err) != HUDI_OK) fail_msg("%s: %s", path, err.message);
  hudi_pq_leaf *leaves;
  uint32_t n;
  assert_int_equal(hudi_pq_schema_leaves(&leaves, &n, &m, &a, &err), HUDI_OK);
  dump_meta(meta, &m, leaves, n);
  for (uint32_t i = 0; i < n; i++) {
    const hudi_pq_column_chunk *cc = &m.row_groups[0].columns[i];
    size_t off, len;
    assert_int_equal(hudi_pq_column_chunk_range(&off, &len, cc, size, &err), HUDI_OK);
    hudi_pq_column_data d;
    hudi_pq_column_data_init(&d);
    if (hudi_pq_column_chunk_read(&d, &leaves[i], &cc->meta, file + off, len, off, NULL, &err) != HUDI_OK)
      fail_msg("%s column %u: %s", path, i, err.message);
    dump_chunk(values, 0, i, &leaves[i], &d);
    hudi_pq_column_data_free(&d);
  }
  hudi_pq_arena_free(&a);
  free(file);
}

static void written_files_read_by_pyarrow(void **state) {
  (void)state;
  assert_int_equal(system("mkdir -p " OUT_DIR), 0);
  const char *py = getenv("HUDI_PYTHON");
  char cmd[8192];
  int n = snprintf(cmd, sizeof cmd, "'%s' '%s/tests/parquet/make_files.py' --dump",
                   py ? py : HUDI_SOURCE_DIR "/.venv/bin/python", HUDI_SOURCE_DIR);
  size_t nvar = sizeof variants / sizeof variants[0];
  hudi_buf expect[sizeof variants / sizeof variants[0]];
  for (size_t v = 0; v < nvar; v++) {
    rng = 0x2545F4914F6CDD1Dull + v;
    coldata *data = calloc(NCOLS, sizeof *data);
    for (int ci = 0; ci < NCOLS; ci++) make_column(&data[ci], &cols[ci], variants[v].cardinality);
    char path[256];
    snprintf(path, sizeof path, OUT_DIR "/%s.parquet", variants[v].name);
    write_file(&variants[v], path, data);
    hudi_buf_init(&expect[v], 0);
    expected_values(&expect[v], data);
    /* Our reader sees what we wrote. */
    hudi_buf mine, meta;
    hudi_buf_init(&mine, 0);
    hudi_buf_init(&meta, 0);
    our_view(&mine, &meta, path);
    assert_int_equal(mine.len, expect[v].len);
    assert_memory_equal(mine.data, expect[v].data, mine.len);
    hudi_buf_free(&mine);
    hudi_buf_free(&meta);
    for (int ci = 0; ci < NCOLS; ci++) hudi_buf_free(&data[ci].values);
    free(data);
    n += snprintf(cmd + n, sizeof cmd - (size_t)n, " '%s'", path);
  }
  assert_int_equal(system(cmd), 0);
  for (size_t v = 0; v < nvar; v++) {
    char path[256], vp[256], mp[256];
    snprintf(path, sizeof path, OUT_DIR "/%s.parquet", variants[v].name);
    snprintf(vp, sizeof vp, OUT_DIR "/%s.values", variants[v].name);
    snprintf(mp, sizeof mp, OUT_DIR "/%s.meta", variants[v].name);
    compare_dump("values", path, &expect[v], vp);
    hudi_buf mine, meta;
    hudi_buf_init(&mine, 0);
    hudi_buf_init(&meta, 0);
    our_view(&mine, &meta, path);
    compare_dump("footer", path, &meta, mp);
    hudi_buf_free(&mine);
    hudi_buf_free(&meta);
    hudi_buf_free(&expect[v]);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(written_files_read_by_pyarrow),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
