#!/usr/bin/env python3
"""Counts the pixels of given colours in a PNG (8-bit RGB or RGBA, as Chromium writes screenshots).

usage: png_colours.py FILE RRGGBB...   prints one line per colour: RRGGBB COUNT
"""
import struct
import sys
import zlib


def pixels(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width, height, kind = 8, b"", 0, 0, 0
    while pos < len(data):
        length, tag = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if tag == b"IHDR":
            width, height, depth, kind = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and kind in (2, 6), "only 8-bit RGB or RGBA"
        elif tag == b"IDAT":
            idat += body
        pos += 12 + length
    channels = 3 if kind == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    previous = bytearray(stride)
    for row in range(height):
        start = row * (stride + 1)
        kind_of_filter, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            up_left = previous[i - channels] if i >= channels else 0
            if kind_of_filter == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind_of_filter == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind_of_filter == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind_of_filter == 4:
                p = left + up - up_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - up_left)
                predictor = left if pa <= pb and pa <= pc else (up if pb <= pc else up_left)
                line[i] = (line[i] + predictor) & 0xFF
        previous = line
        for i in range(0, stride, channels):
            yield bytes(line[i:i + 3])


def main():
    wanted = {bytes.fromhex(colour): 0 for colour in sys.argv[2:]}
    for pixel in pixels(sys.argv[1]):
        if pixel in wanted:
            wanted[pixel] += 1
    for colour, count in wanted.items():
        print(colour.hex(), count)


if __name__ == "__main__":
    main()
