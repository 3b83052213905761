package nova

import (
	"math"
	"testing"

	"github.com/placer/placer/internal/pyval"
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
			if got := pyval.Str(v); got != tc.want {
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
			o, ok := v.(*pyval.Dict)
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

// nan and inf are NaN and +Inf for the tables of other tests.
func nan() float64 { return math.NaN() }
func inf() float64 { return math.Inf(1) }
