#!/usr/bin/env python3
"""Writes python.json, the table pyval's tests check the package against:
what this CPython answers for repr(float), repr(str), str.isprintable(),
str()/repr() of lists and dicts, == and the orderings, float(s) and
int(s), and json.loads of string literals. Run it with the interpreter Nova runs on (Python 3.11):

    python3 python_table.py > python.json

Values travel tagged, as the Go test rebuilds them: ["none"], ["bool", b],
["int", "digits"], ["float", "16 hex digits of the IEEE bits"],
["str", s], ["list", [v...]], ["dict", [[k, v]...]]. A str holding a lone
surrogate cannot be a Go string, so the table has none (the one place
Python makes them, json.loads of "\\ud800", they are written as U+FFFD,
which is what pyval documents)."""

import json
import math
import operator
import random
import re
import struct
import sys
import unicodedata

random.seed(17)  # the table is the same on every run


def bits(f):
    return format(struct.unpack("<Q", struct.pack("<d", f))[0], "016x")


def tag(v):
    if v is None:
        return ["none"]
    if isinstance(v, bool):
        return ["bool", v]
    if isinstance(v, int):
        return ["int", str(v)]
    if isinstance(v, float):
        return ["float", bits(v)]
    if isinstance(v, str):
        return ["str", v]
    if isinstance(v, list):
        return ["list", [tag(x) for x in v]]
    if isinstance(v, dict):
        return ["dict", [[k, tag(x)] for k, x in v.items()]]
    raise TypeError(type(v))


def build(t):
    """A fresh Python value from a tag: two builds are distinct objects, as
    two values json.loads returns are (so [nan] != [nan], as in pyval)."""
    kind = t[0]
    if kind == "none":
        return None
    if kind == "bool":
        return t[1]
    if kind == "int":
        return int(t[1])
    if kind == "float":
        return struct.unpack("<d", struct.pack("<Q", int(t[1], 16)))[0]
    if kind == "str":
        return t[1]
    if kind == "list":
        return [build(x) for x in t[1]]
    if kind == "dict":
        return {k: build(x) for k, x in t[1]}
    raise ValueError(kind)


# repr(float): the cases the issue names, then decades, powers of two
# around 2**53 and beyond, and random bit patterns.
floats = [
    1e16, 1e-5, -0.0, 0.0, math.inf, -math.inf, math.nan, 0.1 + 0.2,
    float(2**53), float(2**53 + 1), float(2**53 + 2), float(2**63),
    float(2**64 + 1), float(10**22), float(10**23), float(12345678901234567),
    1e15, 9999999999999998.0, 1e-4, 1e-5, 0.00012345, 123456789012345678.0,
    5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 0.57 * 100,
    1 / 3, 2 / 3, 100.0, 16.0, 1234567.0, 1.5e300, -1.5e-300,
]
for e in range(-20, 25):
    floats += [10.0**e, 1.5 * 10.0**e, -(10.0**e)]
for _ in range(150):
    f = struct.unpack("<d", struct.pack("<Q", random.getrandbits(64)))[0]
    floats.append(f)
float_repr = [[bits(f), repr(f)] for f in floats]

# repr(str): quotes and each kind of escape.
strings = [
    "", "a", "it's", 'say "hi"', "both '\"", "back\\slash", "\t\n\r",
    "\x00\x01\x1f\x7f", "\x80\x9f\xa0\xa1\xad\xff", "é", "\u200b\u2028",
    "\u0ece", "\U0001F600", "\U000E0001", "\ufffd", "\ufeff", "a\x00b",
    "\U0010ffff", "\ud7ff\ue000", "'", '"', "''\"", "\x85\u0378\U000e01f0",
]
str_repr = [[s, repr(s)] for s in strings]

# str.isprintable() at each edge of the non-printable ranges from U+0080 up
# (the character before, the first, the last, the one after).
edges = []
c = 0x80
while c < 0x110000:
    if not chr(c).isprintable():
        lo = c
        while c < 0x110000 and not chr(c).isprintable():
            c += 1
        edges += [lo - 1, lo, c - 1, c]
    c += 1
edges = [e for e in sorted(set(edges))
         if 0x80 <= e < 0x110000 and not 0xD800 <= e <= 0xDFFF]
printable = [e for e in edges if chr(e).isprintable()]
not_printable = [e for e in edges if not chr(e).isprintable()]

# str() and repr() of containers.
values = [
    None, True, False, 0, -12, 2**63, -(2**63) - 1, 10**30, 1.0, -0.0,
    math.nan, math.inf, "x", "it's", ["aes", "mmx"], [1.0, 1e5, -0, 10**25],
    {"a": 1, "b": "x"}, {"vendor": "Intel", "features": ["aes"],
                         "topology": {"cores": 4}},
    [True, False, None], [], {}, [[["deep"]]], {"k'": {"\n": [0.1, 1e22]}},
    ["é", "\u200b", "\U0001F600"],
]
str_cases = [[tag(v), str(v), repr(v)] for v in values]

# == and the orderings, every pair of these.
cmp_values = [
    None, False, True, 0, 1, -1, 2, 2**53, 2**53 + 1, -(2**53) - 1, 2**63,
    10**30, 0.0, -0.0, 1.0, 0.5, float(2**53), 1e30, math.inf, -math.inf,
    math.nan, "", "a", "b", "ab", "é", "\U0001F600", [], [1], [1, 2], [2],
    [1.0], ["a"], [math.nan], [None], {}, {"a": 1}, {"a": 1.0},
]
OPS = ["==", "<", "<=", ">", ">="]


type_errors = []  # the messages, once each; a row holds an index


def order(op, a, b):
    try:
        return {"<": operator.lt, "<=": operator.le,
                ">": operator.gt, ">=": operator.ge}[op](a, b)
    except TypeError as e:
        msg = "TypeError: " + str(e)
        if msg not in type_errors:
            type_errors.append(msg)
        return type_errors.index(msg)


cmp_tags = [tag(v) for v in cmp_values]
truthy = [bool(build(t)) for t in cmp_tags]
type_names = [type(build(t)).__name__ for t in cmp_tags]
compare = []
for i, ta in enumerate(cmp_tags):
    for j, tb in enumerate(cmp_tags):
        row = [i, j]
        for op in OPS:
            a, b = build(ta), build(tb)  # fresh objects for each operation
            row.append(a == b if op == "==" else order(op, a, b))
        compare.append(row)

# float(s) and int(s).
num_strings = [
    " 1_000 ", "1__0", "_1", "1_", "1_.5", "1._5", "inf", "-Infinity", "nAn",
    "1e3", ".5", "5.", "1e", "0x10", "\u0661\u0662", "\x1c5", "1_0e1_0",
    "+.5e-3", "\xa05", "\u20005", "", " ", ".", "e5", "1e+", "--1", "+-1",
    "+-inf", "1.5.5", "infinit", "+nan", "-nan", "1e400", "-1e400", "1e-400",
    "\U0001D7D95", " 007 ", "0_7", "4.0", "+4", "-0", "1_000", "\u0663",
    "4e1", " -12 ", "9223372036854775807", "9223372036854775808",
    "-9223372036854775809", "123456789012345678901234567890", "0x1",
    "\x1c1", "\x855", "\u30005", "5\u2028", "\uff11\uff12", "0_0", "00",
    "1e1_0", "1E+1_0", "infinity ", "inF", "nan0", "0b1", "1 2", "\t3\n",
    "\x0b4\x0c", "١٫٥", "1.5e-7", "0.1", "17976931348623159e292",
]


def outcome(f, s):
    try:
        v = f(s)
    except ValueError:
        return None
    return bits(v) if isinstance(v, float) else str(v)


numbers = [[s, outcome(float, s), outcome(int, s)] for s in num_strings]

# json.loads of string literals: escapes, surrogates, faults.
pieces = [
    "\\", "\\u", "\\ud800", "\\udbff", "\\udc00", "\\udfff", "\\uD83D",
    "\\uDE00", "\\u0041", "\\u00e9", "\\u12", "\\uzzzz", "\\u+123",
    "\\u_123", "\\x", "\\n", "\\t", "\\\"", "\\/", "\\b", "\\f", "\\r",
    "\\\\", "a", "é", "\U0001F600", "d800", "u", "0",
]
bodies = ["\\ud83d\\ude00", "\\ud83d\\ud83d\\ude00", "\\ude00\\ud83d",
          "\\ud800\\u0041", "\\ud800", "\\u00e9\\u2028", "abc\\", "\\u004",
          "\\uDBFF\\uDFFF", "\\ud800\\uDC00", "\\ud800\\u12",
          "\\ud800xudc00", "\\ud800\\\\udc00", "\\ud800\\n"]
for _ in range(200):
    bodies.append("".join(random.choice(pieces)
                          for _ in range(random.randint(1, 5))))
SURROGATE = re.compile("[\ud800-\udfff]")
unescape = []
for body in dict.fromkeys(bodies):
    try:
        got = SURROGATE.sub("\ufffd", json.loads('"' + body + '"'))
        unescape.append([body, got, None])
    except json.JSONDecodeError as e:
        unescape.append([body, None, e.msg])

table = {
    "python": sys.version.split()[0],
    "unicode": unicodedata.unidata_version,
    "float_repr": float_repr,
    "str_repr": str_repr,
    "printable": printable,
    "not_printable": not_printable,
    "str": str_cases,
    "compare_values": cmp_tags,
    "truthy": truthy,
    "type_names": type_names,
    "compare_ops": OPS,
    "compare": compare,
    "type_errors": type_errors,
    "numbers": numbers,
    "unescape": unescape,
}


def dumps(v):
    return json.dumps(v, ensure_ascii=True, separators=(",", ":"))


# One entry a line, so that a change to the table reads as a diff.
out = []
for key, v in table.items():
    if isinstance(v, list) and v and isinstance(v[0], list):
        rows = ",\n".join(dumps(x) for x in v)
        out.append(dumps(key) + ":[\n" + rows + "\n]")
    else:
        out.append(dumps(key) + ":" + dumps(v))
sys.stdout.write("{\n" + ",\n".join(out) + "\n}\n")
