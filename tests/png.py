"""Reading a PNG whole, for the tests of the docs' pictures of forms."""

from __future__ import annotations

import struct
import zlib

PNG = b"\x89PNG\r\n\x1a\n"
# A picture of a form is the Inspector's dialog (620 px wide at 1280) holding it, cropped to
# it: no wider than the page, no taller than the tab the script opens, a few tens of KB.
WIDTHS = range(400, 1280 + 1)
HEIGHTS = range(200, 1200 + 1)
BYTES = range(5_000, 120_000 + 1)


def png_size(data: bytes) -> tuple[int, int]:
    """The width and height of a whole PNG: every chunk's CRC right, its pixels inflatable."""
    assert data.startswith(PNG), "not a PNG"
    at, chunks, pixels = len(PNG), [], b""
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind, body = data[at + 4 : at + 8], data[at + 8 : at + 8 + length]
        (crc,) = struct.unpack(">I", data[at + 8 + length : at + 12 + length])
        assert zlib.crc32(kind + body) == crc, f"chunk {kind!r} is damaged"
        chunks.append(kind)
        pixels += body if kind == b"IDAT" else b""
        at += 12 + length
    assert chunks[0] == b"IHDR"
    assert chunks[-1] == b"IEND"
    assert b"IDAT" in chunks
    width, height = struct.unpack(">II", data[len(PNG) + 8 : len(PNG) + 16])
    zlib.decompress(pixels)  # the whole image, or an error
    return width, height


def check_form_picture(data: bytes) -> tuple[int, int]:
    """The size of a whole PNG that can be a picture of a form, or an assertion error."""
    width, height = png_size(data)
    assert width in WIDTHS, f"{width} px wide"
    assert height in HEIGHTS, f"{height} px high"
    assert len(data) in BYTES, f"{len(data)} bytes"
    return width, height
