#!/usr/bin/env python3
"""Writes printable.go: the ranges of characters from U+0080 up for which
this Python's str.isprintable() is false. Run it with the interpreter Nova
runs on (Python 3.11, Unicode 14): python3 printable.py > printable.go"""
import sys
import unicodedata

WIDTH = int(sys.argv[1]) if len(sys.argv) > 1 else 72

ranges = []
for c in range(0x80, 0x110000):
    if chr(c).isprintable():
        continue
    if ranges and ranges[-1][1] == c - 1:
        ranges[-1][1] = c
    else:
        ranges.append([c, c])

major, minor = sys.version_info[:2]
print(f"// Code generated from Python {major}.{minor} (Unicode {unicodedata.unidata_version}), "
      "the interpreter Nova 26 runs on; DO NOT EDIT.")
print()
print("package pyval")
print()
print("// nonPrintable lists, as inclusive [lo, hi] ranges, the characters from")
print(f"// U+0080 up for which Python {major}.{minor} str.isprintable() is false; repr()")
print("// escapes them.")
print("var nonPrintable = [][2]rune{")
line = "\t"
for lo, hi in ranges:
    item = "{%#x, %#x}," % (lo, hi)
    if line != "\t" and len(line) + 1 + len(item) > WIDTH:
        print(line)
        line = "\t"
    line += ("" if line == "\t" else " ") + item
print(line)
print("}")
