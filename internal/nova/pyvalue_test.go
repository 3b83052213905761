package nova

import (
	"math"
	"testing"
)

// TestParseJSONStr checks str(json.loads(text)); the expected values came
// from running Python 3 (Nova 26's interpreter) on each text.
func TestParseJSONStr(t *testing.T) {
	cases := []struct{ text, want string }{
		{"16.0", "16.0"},
		{"1e16", "1e+16"},
		{"1234567.0", "1234567.0"},
		{"0.1", "0.1"},
		{"1e-05", "1e-05"},
		{"1.5e-5", "1.5e-05"},
		{"0.0001", "0.0001"},
		{"123456789012345678.0", "1.2345678901234568e+17"},
		{"1e22", "1e+22"},
		{"-0.0", "-0.0"},
		{"2.5e-07", "2.5e-07"},
		{"9999999999999998.0", "9999999999999998.0"},
		{"1e15", "1000000000000000.0"},
		{"1E400", "inf"},
		{"-1E400", "-inf"},
		{"NaN", "nan"},
		{"-Infinity", "-inf"},
		{"true", "True"},
		{"null", "None"},
		{"\"x\"", "x"},
		{"[\"aes\", \"mmx\"]", "['aes', 'mmx']"},
		{"{\"a\": 1, \"b\": \"x\"}", "{'a': 1, 'b': 'x'}"},
		{"{\"a\":1,\"b\":2,\"a\":3}", "{'a': 3, 'b': 2}"},
		{"[1.0, 1e5, -0, 12345678901234567890123]", "[1.0, 100000.0, 0, 12345678901234567890123]"},
		{"[\"a'b\", \"a\\\"b\", \"a'\\\"b\", \"\\n\\t\\u0001\\u007f\\u00e9\\u200b\", \"\\\\\"]", "[\"a'b\", 'a\"b', 'a\\'\"b', '\\n\\t\\x01\\x7f\u00e9\\u200b', '\\\\']"},
		{"{\"vendor\": \"Intel\", \"features\": [\"aes\"], \"topology\": {\"cores\": 4}}", "{'vendor': 'Intel', 'features': ['aes'], 'topology': {'cores': 4}}"},
		{" [ ] ", "[]"},
		{"{}", "{}"},
		{"\"\\ud83d\\ude00\"", "\U0001F600"},
		{"[0.57, 5e-324, 1.7976931348623157e308]", "[0.57, 5e-324, 1.7976931348623157e+308]"},
		{"-12", "-12"},
		{"[true, false, null]", "[True, False, None]"},
	}
	for _, tc := range cases {
		t.Run(tc.text, func(t *testing.T) {
			v, err := ParseJSON(tc.text)
			if err != nil {
				t.Fatalf("ParseJSON(%q): %v", tc.text, err)
			}
			if got := PyStr(v); got != tc.want {
				t.Fatalf("str(json.loads(%q)) = %q, want %q", tc.text, got, tc.want)
			}
		})
	}
}

// TestParseJSONRefused lists texts Python's json.loads refuses.
func TestParseJSONRefused(t *testing.T) {
	for _, text := range []string{
		"",
		"01",
		"1.",
		"[1,]",
		"{\"a\" 1}",
		"{'a': 1}",
		"[1] x",
		"nan",
		"\"a\nb\"",
		"\"\\x\"",
		"-",
		".5",
		"1e",
		"+1",
		"tru",
	} {
		t.Run(text, func(t *testing.T) {
			if v, err := ParseJSON(text); err == nil {
				t.Fatalf("ParseJSON(%q) = %v, want an error", text, v)
			}
		})
	}
}

func TestParseJSONTypes(t *testing.T) {
	cases := []struct {
		name, text string
		check      func(v any) bool
	}{
		{"int", "12", func(v any) bool { return v == int64(12) }},
		{"float", "12.0", func(v any) bool { return v == 12.0 }},
		{"exp is float", "1e2", func(v any) bool { return v == 100.0 }},
		{"nan", "NaN", func(v any) bool { f, ok := v.(float64); return ok && math.IsNaN(f) }},
		{"object order", `{"b":1,"a":2}`, func(v any) bool {
			o, ok := v.(*Object)
			return ok && len(o.Keys) == 2 && o.Keys[0] == "b" && o.Values["a"] == int64(2)
		}},
		{"string", `"a\u00e9"`, func(v any) bool { return v == "aé" }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, err := ParseJSON(tc.text)
			if err != nil || !tc.check(v) {
				t.Fatalf("ParseJSON(%q) = %#v, %v", tc.text, v, err)
			}
		})
	}
}

func TestPyStrGoValues(t *testing.T) {
	cases := []struct {
		name string
		v    any
		want string
	}{
		{"none", nil, "None"},
		{"true", true, "True"},
		{"false", false, "False"},
		{"string", "Intel", "Intel"},
		{"float", fraction057 * 100, "56.99999999999999"},
		{"string list", []string{"aes", "mmx"}, "['aes', 'mmx']"},
		{"supported", [][3]string{{"x86_64", "kvm", "hvm"}}, "[['x86_64', 'kvm', 'hvm']]"},
		{"string dict sorted", map[string]string{"b": "2", "a": "1"}, "{'a': '1', 'b': '2'}"},
		{"int", int64(-3), "-3"},
		// Python 3.11 (Unicode 14) escapes U+0ECE, new in Unicode 15.
		{"unicode 15 char escaped", []string{"\u0ece\u00e9"}, "['\\u0eceé']"},
		{"quotes", []string{`it's`, `say "hi"`, `both '"`}, `["it's", 'say "hi"', 'both \'"']`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := PyStr(tc.v); got != tc.want {
				t.Fatalf("PyStr(%#v) = %q, want %q", tc.v, got, tc.want)
			}
		})
	}
}

// fraction057 is a variable so that 0.57*100 is float64 arithmetic, not
// an exact constant.
var fraction057 = 0.57

// TestPyFloat: expected values from running Python 3's float() (Nova 26's
// interpreter) on each string.
func TestPyFloat(t *testing.T) {
	cases := []struct {
		s    string
		want float64
		ok   bool
	}{
		{" 1_000 ", 1000.0, true},
		{"1__0", 0, false},
		{"_1", 0, false},
		{"1_", 0, false},
		{"1_.5", 0, false},
		{"1._5", 0, false},
		{"inf", math.Inf(1), true},
		{"-Infinity", math.Inf(-1), true},
		{"nAn", math.NaN(), true},
		{"1e3", 1000.0, true},
		{".5", 0.5, true},
		{"5.", 5.0, true},
		{"1e", 0, false},
		{"0x10", 0, false},
		{"\u0661\u0662", 12.0, true},
		{"\u001c5", 0, false},
		{"1_0e1_0", 100000000000.0, true},
		{"+.5e-3", 0.0005, true},
		{"\u00a05", 5.0, true},
		{"\u20005", 5.0, true},
		{"", 0, false},
		{" ", 0, false},
		{".", 0, false},
		{"e5", 0, false},
		{"1e+", 0, false},
		{"--1", 0, false},
		{"+-1", 0, false},
		{"+-inf", 0, false},
		{"1.5.5", 0, false},
		{"infinit", 0, false},
		{"+nan", math.NaN(), true},
		{"1e400", math.Inf(1), true},
		{"\U0001D7D95", 15.0, true},
	}
	for _, tc := range cases {
		t.Run(tc.s, func(t *testing.T) {
			got, ok := PyFloat(tc.s)
			same := got == tc.want || (math.IsNaN(got) && math.IsNaN(tc.want))
			if ok != tc.ok || (ok && !same) {
				t.Fatalf("PyFloat(%q) = %v, %v; want %v, %v", tc.s, got, ok, tc.want, tc.ok)
			}
		})
	}
}

// TestPyInt: expected values from running Python 3's int() on each string
// (9223372036854775808 is a valid Python int, refused here as too big).
func TestPyInt(t *testing.T) {
	cases := []struct {
		s    string
		want int64
		ok   bool
	}{
		{" 007 ", 7, true},
		{"0_7", 7, true},
		{"4.0", 0, false},
		{"+4", 4, true},
		{"-0", 0, true},
		{"1_000", 1000, true},
		{"\u0663", 3, true},
		{"", 0, false},
		{"4e1", 0, false},
		{" -12 ", -12, true},
		{"9223372036854775807", 9223372036854775807, true},
		{"9223372036854775808", 0, false},
		{"1__0", 0, false},
		{"0x1", 0, false},
		{"\u001c1", 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.s, func(t *testing.T) {
			got, ok := PyInt(tc.s)
			if ok != tc.ok || got != tc.want {
				t.Fatalf("PyInt(%q) = %v, %v; want %v, %v", tc.s, got, ok, tc.want, tc.ok)
			}
		})
	}
}

func nan() float64 { return math.NaN() }
func inf() float64 { return math.Inf(1) }
