package scenario

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// generic turns a node into what encoding/json's Unmarshal (with UseNumber)
// gives, to compare the two parsers.
func generic(n *node) any {
	switch n.kind {
	case kNull:
		return nil
	case kBool:
		return n.b
	case kString:
		return n.s
	case kInt, kBigInt, kFloat:
		return "number"
	case kList:
		out := []any{}
		for _, x := range n.items {
			out = append(out, generic(x))
		}
		return out
	}
	out := map[string]any{}
	for i, k := range n.keys {
		out[k] = generic(n.items[i])
	}
	return out
}

func stdlibGeneric(t testing.TB, data []byte) any {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("stdlib: %v", err)
	}
	var walk func(any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case json.Number:
			return "number"
		case []any:
			out := []any{}
			for _, e := range x {
				out = append(out, walk(e))
			}
			return out
		case map[string]any:
			for k, e := range x {
				x[k] = walk(e)
			}
		}
		return v
	}
	return walk(v)
}

func TestParseJSON(t *testing.T) {
	for _, tc := range []struct {
		text    string
		want    any    // generic form
		wantErr string // or a part of the error
	}{
		{text: `"a\"b\\c\/d\b\f\n\r\t"`, want: "a\"b\\c/d\b\f\n\r\t"},
		{text: `"\u00e9\ud83d\ude00\u2028"`, want: "é😀\u2028"},
		{text: `"\ud800"`, want: "\ufffd"},
		{text: `"\ud800\u0041"`, want: "\ufffdA"},
		{text: `"é"`, want: "é"},
		{text: ` [ 1 , {"a" : [ ] } , { } ] `, want: []any{"number", map[string]any{"a": []any{}}, map[string]any{}}},
		{text: `"\x"`, wantErr: "invalid character 'x' in string escape code (line 1 column 3)"},
		{text: `"\u12"`, wantErr: `in \u hexadecimal character escape`},
		{text: "\"a\tb\"", wantErr: `invalid character '\t' in string literal (line 1 column 3)`},
		{text: `[1,]`, wantErr: "invalid character ']' looking for beginning of value (line 1 column 4)"},
		{text: `{"a":1,}`, wantErr: "invalid character '}' looking for beginning of object key string (line 1 column 8)"},
		{text: `{"a" 1}`, wantErr: "invalid character '1' after object key (line 1 column 6)"},
		{text: `{"a": 1 "b": 2}`, wantErr: "invalid character '\"' after object key:value pair (line 1 column 9)"},
		{text: `[1 2]`, wantErr: "invalid character '2' after array element (line 1 column 4)"},
		{text: `01`, wantErr: "extra data after the document (line 1 column 2)"},
		{text: `-`, wantErr: "unexpected end of input (line 1 column 2)"},
		{text: `1.`, wantErr: "unexpected end of input"},
		{text: `1.e5`, wantErr: "invalid character 'e' after decimal point in numeric literal"},
		{text: `1e+`, wantErr: "unexpected end of input"},
		{text: `tru`, wantErr: "invalid character 't' looking for beginning of value"},
		{text: `'a'`, wantErr: `invalid character '\'' looking for beginning of value`},
		{text: "\n\n  é", wantErr: "invalid character 'é' looking for beginning of value (line 3 column 3)"},
		{text: "\xff", wantErr: "not valid JSON: the input is not UTF-8 text"},
		{text: "   ", wantErr: "not valid JSON: the input is empty"},
		{text: strings.Repeat("[", maxDepth+2), wantErr: "nested too deeply"},
	} {
		n, err := parseJSON([]byte(tc.text))
		switch {
		case tc.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%q: error %v, want %q", tc.text, err, tc.wantErr)
			}
		case err != nil:
			t.Errorf("%q: %v", tc.text, err)
		default:
			if got := generic(n); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%q: got %#v, want %#v", tc.text, got, tc.want)
			}
		}
	}
}

func TestParseNumbers(t *testing.T) {
	for _, tc := range []struct {
		text string
		kind kind
		i    int64
		f    float64
		s    string
	}{
		{"0", kInt, 0, 0, ""},
		{"-0", kInt, 0, 0, ""},
		{"-9223372036854775808", kInt, math.MinInt64, 0, ""},
		{"9223372036854775807", kInt, math.MaxInt64, 0, ""},
		{"9223372036854775808", kBigInt, 0, 0, "9223372036854775808"},
		{"123456789012345678", kInt, 123456789012345678, 0, ""},
		{"1.0", kFloat, 0, 1, ""},
		{"1E2", kFloat, 0, 100, ""},
		{"-0.0", kFloat, 0, math.Copysign(0, -1), ""},
		{"1e400", kFloat, 0, math.Inf(1), ""},
		{"-1e400", kFloat, 0, math.Inf(-1), ""},
		{"1e-400", kFloat, 0, 0, ""},
	} {
		n, err := parseJSON([]byte(tc.text))
		if err != nil {
			t.Fatalf("%s: %v", tc.text, err)
		}
		if n.kind != tc.kind || n.i != tc.i || math.Float64bits(n.f) != math.Float64bits(tc.f) || n.s != tc.s {
			t.Errorf("%s: got %+v", tc.text, *n)
		}
	}
}

func TestPyDump(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		// Values from Python 3.11's json.dumps.
		{`{"a":1e16,"b":1e-5,"c":0.0001,"d":123456789012345678.0,"e":-0.0}`,
			`{"a": 1e+16, "b": 1e-05, "c": 0.0001, "d": 1.2345678901234568e+17, "e": -0.0}`},
		{`{"f":"é\u007f\u2028😀","g":1.5e300,"h":1e22,"i":12345678901234567.0}`,
			`{"f": "\u00e9\u007f\u2028\ud83d\ude00", "g": 1.5e+300, "h": 1e+22, "i": 1.2345678901234568e+16}`},
		{`[1234567890123456.0, 0.1, 100.0, 1e400, -1e400, 5e-324, 0.001]`,
			`[1234567890123456.0, 0.1, 100.0, Infinity, -Infinity, 5e-324, 0.001]`},
		{`["\"\\\n\r\t\b\f\u0001 ~"]`, `["\"\\\n\r\t\b\f\u0001 ~"]`},
		{`{}`, `{}`},
		{`[]`, `[]`},
		{`[true, false, null, -5, 99999999999999999999]`, `[true, false, null, -5, 99999999999999999999]`},
	} {
		n, err := parseJSON([]byte(tc.text))
		if err != nil {
			t.Fatal(err)
		}
		if got := pyDump(n); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.text, got, tc.want)
		}
	}
}

// FuzzDecode: the parser agrees with encoding/json on what is JSON (except
// what the contract refuses on purpose: duplicate keys, extreme nesting),
// Decode never panics, and whatever it accepts survives EncodeScenario.
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "gen-*.json"))
	for _, name := range files[:1] {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	for _, tc := range goodCases {
		f.Add([]byte(tc.text))
	}
	for _, tc := range badCases {
		f.Add([]byte(tc.text))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := parseJSON(data)
		valid := json.Valid(data) && utf8.Valid(data) // the reader refuses invalid UTF-8 anywhere
		switch {
		case err == nil && !valid:
			t.Fatalf("parseJSON accepts what encoding/json refuses: %q", data)
		case err != nil && valid && !strings.Contains(err.Error(), "duplicate key") &&
			!strings.Contains(err.Error(), "nested too deeply"):
			t.Fatalf("parseJSON refuses valid JSON %q: %v", data, err)
		case err == nil && !hasLoneSurrogate(data):
			if got, want := generic(n), stdlibGeneric(t, data); !reflect.DeepEqual(got, want) {
				t.Fatalf("parse differs from encoding/json on %q:\n%#v\n%#v", data, got, want)
			}
		}
		s, err := Decode(bytes.NewReader(data))
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := EncodeScenario(&b, s); err != nil {
			t.Fatalf("EncodeScenario: %v", err)
		}
		again, err := Decode(&b)
		if err != nil {
			t.Fatalf("re-encoded scenario does not decode: %v\n%s", err, b.String())
		}
		if !reflect.DeepEqual(s, again) {
			t.Fatalf("round trip differs:\n%+v\n%+v", s, again)
		}
	})
}

// hasLoneSurrogate: both parsers turn a lone \uD800 into U+FFFD, but the
// comparison is simpler without them.
func hasLoneSurrogate(data []byte) bool { return bytes.Contains(bytes.ToLower(data), []byte(`\ud`)) }
