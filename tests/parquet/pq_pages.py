"""Walks the page headers of a Parquet file's column chunks, independently of
hudi-c's reader and of pyarrow (which exposes no page headers unless a page
index was written): the chunk ranges come from pyarrow's footer metadata, the
headers are parsed with the generic Thrift compact codec of legacy_lists.py.

    pages(path) -> {(row_group, column): [Page, ...]} in file order
"""
from __future__ import annotations

from dataclasses import dataclass

import pyarrow.parquet as pq

from legacy_lists import Reader, get

DATA_PAGE, INDEX_PAGE, DICTIONARY_PAGE, DATA_PAGE_V2 = 0, 1, 2, 3
ENCODINGS = {0: "PLAIN", 2: "PLAIN_DICTIONARY", 3: "RLE", 4: "BIT_PACKED", 5: "DELTA_BINARY_PACKED",
             6: "DELTA_LENGTH_BYTE_ARRAY", 7: "DELTA_BYTE_ARRAY", 8: "RLE_DICTIONARY", 9: "BYTE_STREAM_SPLIT"}


@dataclass
class Page:
    type: int                 # DATA_PAGE, DICTIONARY_PAGE, DATA_PAGE_V2
    encoding: str             # the values' encoding
    num_values: int           # levels (data pages) or entries (dictionary page)
    uncompressed_size: int    # header's uncompressed_page_size (levels + values, header excluded)
    compressed_size: int

    @property
    def is_data(self) -> bool:
        return self.type in (DATA_PAGE, DATA_PAGE_V2)


def chunk_pages(data: bytes, start: int, length: int) -> list[Page]:
    out, pos, end = [], start, start + length
    while pos < end:
        r = Reader(data[pos:min(end, pos + 4096)])  # a header is far below 4 KiB here
        h = r.struct()
        ptype, usize, csize = get(h, 1)[2], get(h, 2)[2], get(h, 3)[2]
        sub_id, enc_id = {DATA_PAGE: (5, 2), DICTIONARY_PAGE: (7, 2), DATA_PAGE_V2: (8, 4)}.get(ptype, (None, None))
        enc, nv = "?", 0
        if sub_id is not None:
            sub = get(h, sub_id)[2]
            enc, nv = ENCODINGS.get(get(sub, enc_id)[2], "?"), get(sub, 1)[2]
        out.append(Page(ptype, enc, nv, usize, csize))
        pos += r.p + csize
    if pos != end:
        raise ValueError(f"pages overrun the column chunk ({pos} != {end})")
    return out


def pages(path) -> dict[tuple[int, int], list[Page]]:
    md = pq.ParquetFile(path).metadata
    data = open(path, "rb").read()
    out = {}
    for g in range(md.num_row_groups):
        rg = md.row_group(g)
        for j in range(rg.num_columns):
            c = rg.column(j)
            start = c.dictionary_page_offset if c.has_dictionary_page else c.data_page_offset
            out[(g, j)] = chunk_pages(data, start, c.total_compressed_size)
    return out
