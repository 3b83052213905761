package pyval

import "testing"

func TestStrGoValues(t *testing.T) {
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
			if got := Str(tc.v); got != tc.want {
				t.Fatalf("Str(%#v) = %q, want %q", tc.v, got, tc.want)
			}
		})
	}
}

// fraction057 is a variable so that 0.57*100 is float64 arithmetic, not
// an exact constant.
var fraction057 = 0.57
