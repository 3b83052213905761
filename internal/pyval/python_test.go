package pyval

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// pythonTable is testdata/python.json: what CPython 3.11 answered, written
// by testdata/python_table.py (see there for the format).
type pythonTable struct {
	Python        string               `json:"python"`
	Unicode       string               `json:"unicode"`
	FloatRepr     [][2]string          `json:"float_repr"`
	StrRepr       [][2]string          `json:"str_repr"`
	Printable     []rune               `json:"printable"`
	NotPrintable  []rune               `json:"not_printable"`
	Str           [][3]json.RawMessage `json:"str"`
	CompareValues []json.RawMessage    `json:"compare_values"`
	Truthy        []bool               `json:"truthy"`
	TypeNames     []string             `json:"type_names"`
	CompareOps    []string             `json:"compare_ops"`
	Compare       [][]json.RawMessage  `json:"compare"`
	TypeErrors    []string             `json:"type_errors"`
	Numbers       [][3]*string         `json:"numbers"`
	Unescape      [][3]*string         `json:"unescape"`
}

func loadPythonTable(t *testing.T) *pythonTable {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "python.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tab pythonTable
	if err := json.Unmarshal(data, &tab); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(tab.Python, "3.11.") || tab.Unicode != "14.0.0" {
		t.Fatalf("the table comes from Python %s (Unicode %s), not 3.11 (Unicode 14) as Nova 26's", tab.Python, tab.Unicode)
	}
	return &tab
}

func floatBits(t *testing.T, hex string) float64 {
	t.Helper()
	u, err := strconv.ParseUint(hex, 16, 64)
	if err != nil {
		t.Fatal(err)
	}
	return math.Float64frombits(u)
}

// untag rebuilds a value of the model from the table's tagged form.
func untag(t *testing.T, raw json.RawMessage) any {
	t.Helper()
	var tv []json.RawMessage
	if err := json.Unmarshal(raw, &tv); err != nil || len(tv) == 0 {
		t.Fatalf("bad tagged value %s", raw)
	}
	var kind string
	json.Unmarshal(tv[0], &kind)
	switch kind {
	case "none":
		return nil
	case "bool":
		var b bool
		json.Unmarshal(tv[1], &b)
		return b
	case "int":
		var s string
		json.Unmarshal(tv[1], &s)
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i
		}
		b, _ := new(big.Int).SetString(s, 10)
		return b
	case "float":
		var s string
		json.Unmarshal(tv[1], &s)
		return floatBits(t, s)
	case "str":
		var s string
		json.Unmarshal(tv[1], &s)
		return s
	case "list":
		var items []json.RawMessage
		json.Unmarshal(tv[1], &items)
		out := []any{}
		for _, x := range items {
			out = append(out, untag(t, x))
		}
		return out
	case "dict":
		var pairs [][2]json.RawMessage
		json.Unmarshal(tv[1], &pairs)
		d := &Dict{Values: map[string]any{}}
		for _, p := range pairs {
			var k string
			json.Unmarshal(p[0], &k)
			d.Set(k, untag(t, p[1]))
		}
		return d
	}
	t.Fatalf("unknown tag %q", kind)
	return nil
}

func TestFloatReprPython(t *testing.T) {
	tab := loadPythonTable(t)
	for _, c := range tab.FloatRepr {
		f := floatBits(t, c[0])
		if got := FloatRepr(f); got != c[1] {
			t.Errorf("FloatRepr(%v) [bits %s] = %q, Python's repr %q", f, c[0], got, c[1])
		}
		if got := Repr(f); got != c[1] {
			t.Errorf("Repr(%v) = %q, Python %q", f, got, c[1])
		}
	}
}

func TestStrReprPython(t *testing.T) {
	tab := loadPythonTable(t)
	for _, c := range tab.StrRepr {
		if got := StrRepr(c[0]); got != c[1] {
			t.Errorf("StrRepr(%q) = %s, Python's repr %s", c[0], got, c[1])
		}
	}
}

func TestPrintablePython(t *testing.T) {
	tab := loadPythonTable(t)
	if len(tab.Printable) == 0 || len(tab.NotPrintable) == 0 {
		t.Fatal("empty printable table")
	}
	for _, r := range tab.Printable {
		if !Printable(r) {
			t.Errorf("Printable(%U) = false, Python's isprintable True", r)
		}
	}
	for _, r := range tab.NotPrintable {
		if Printable(r) {
			t.Errorf("Printable(%U) = true, Python's isprintable False", r)
		}
	}
	for r := rune(0); r < 0x80; r++ {
		if want := r >= 0x20 && r < 0x7f; Printable(r) != want {
			t.Errorf("Printable(%U) = %v, want %v", r, !want, want)
		}
	}
}

func TestStrPython(t *testing.T) {
	tab := loadPythonTable(t)
	for _, c := range tab.Str {
		v := untag(t, c[0])
		var str, repr string
		json.Unmarshal(c[1], &str)
		json.Unmarshal(c[2], &repr)
		if got := Str(v); got != str {
			t.Errorf("Str(%s) = %q, Python's str %q", c[0], got, str)
		}
		if got := Repr(v); got != repr {
			t.Errorf("Repr(%s) = %q, Python's repr %q", c[0], got, repr)
		}
	}
}

func TestComparePython(t *testing.T) {
	tab := loadPythonTable(t)
	if len(tab.Compare) != len(tab.CompareValues)*len(tab.CompareValues) {
		t.Fatalf("%d comparison rows for %d values", len(tab.Compare), len(tab.CompareValues))
	}
	for _, row := range tab.Compare {
		var i, j int
		json.Unmarshal(row[0], &i)
		json.Unmarshal(row[1], &j)
		// fresh values for each operation, as the table's Python did
		a, b := untag(t, tab.CompareValues[i]), untag(t, tab.CompareValues[j])
		for k, op := range tab.CompareOps {
			wantRaw := row[2+k]
			if op == "==" {
				var want bool
				json.Unmarshal(wantRaw, &want)
				if got := Eq(a, b); got != want {
					t.Errorf("Eq(%s, %s) = %v, Python %v", tab.CompareValues[i], tab.CompareValues[j], got, want)
				}
				continue
			}
			got, err := Order(op, a, b)
			var wantBool bool
			if json.Unmarshal(wantRaw, &wantBool) == nil {
				if err != nil || got != wantBool {
					t.Errorf("Order(%q, %s, %s) = %v, %v; Python %v", op, tab.CompareValues[i], tab.CompareValues[j], got, err, wantBool)
				}
				continue
			}
			var e int
			json.Unmarshal(wantRaw, &e)
			want := tab.TypeErrors[e]
			pe, ok := err.(*Error)
			if !ok || pe.Error() != want {
				t.Errorf("Order(%q, %s, %s) = %v, %v; Python raises %s", op, tab.CompareValues[i], tab.CompareValues[j], got, err, want)
			}
		}
	}
}

func TestTruthyTypeNamePython(t *testing.T) {
	tab := loadPythonTable(t)
	if len(tab.Truthy) != len(tab.CompareValues) || len(tab.TypeNames) != len(tab.CompareValues) {
		t.Fatal("truthy and type_names do not match compare_values")
	}
	for i, raw := range tab.CompareValues {
		v := untag(t, raw)
		if got := Truthy(v); got != tab.Truthy[i] {
			t.Errorf("Truthy(%s) = %v, Python's bool %v", raw, got, tab.Truthy[i])
		}
		if got := TypeName(v); got != tab.TypeNames[i] {
			t.Errorf("TypeName(%s) = %q, Python %q", raw, got, tab.TypeNames[i])
		}
	}
}

func TestNumbersPython(t *testing.T) {
	tab := loadPythonTable(t)
	for _, c := range tab.Numbers {
		s := *c[0]
		f, ok := Float(s)
		switch want := c[1]; {
		case want == nil && ok:
			t.Errorf("Float(%q) = %v, Python raises ValueError", s, f)
		case want != nil && !ok:
			t.Errorf("Float(%q) refused, Python gives %v", s, floatBits(t, *want))
		case want != nil:
			w := floatBits(t, *want)
			if math.Float64bits(f) != math.Float64bits(w) && !(math.IsNaN(f) && math.IsNaN(w)) {
				t.Errorf("Float(%q) = %v, Python %v", s, f, w)
			}
		}
		b, ok := BigInt(s)
		i, iok := Int(s)
		switch want := c[2]; {
		case want == nil && (ok || iok):
			t.Errorf("BigInt(%q) = %v, Int %v; Python raises ValueError", s, b, i)
		case want != nil && !ok:
			t.Errorf("BigInt(%q) refused, Python gives %s", s, *want)
		case want != nil:
			if b.String() != *want {
				t.Errorf("BigInt(%q) = %v, Python %s", s, b, *want)
			}
			if iok != b.IsInt64() || (iok && i != b.Int64()) {
				t.Errorf("Int(%q) = %v, %v; BigInt %v", s, i, iok, b)
			}
		}
	}
}

// decodeLiteral reads the JSON string literal "body" with Unescape, as
// both parsers do, and says what fault (by Python's message) stops it.
func decodeLiteral(body string) (string, string) {
	lit := `"` + body + `"`
	var b []byte
	for i := 1; i < len(lit); {
		c := lit[i]
		switch {
		case c == '"':
			if i != len(lit)-1 {
				return "", "Extra data"
			}
			return string(b), ""
		case c < 0x20:
			return "", "Invalid control character at"
		case c != '\\':
			b = append(b, c)
			i++
			continue
		}
		r, next, fault := Unescape(lit, i)
		switch fault {
		case EscapeTruncated:
			return "", "Unterminated string starting at"
		case EscapeUnknown:
			return "", `Invalid \escape`
		case EscapeBadHex:
			return "", `Invalid \uXXXX escape`
		}
		b = fmt.Appendf(b, "%c", r)
		i = next
	}
	return "", "Unterminated string starting at"
}

func TestUnescapePython(t *testing.T) {
	tab := loadPythonTable(t)
	for _, c := range tab.Unescape {
		body := *c[0]
		got, fault := decodeLiteral(body)
		switch {
		case c[2] != nil && fault != *c[2]:
			t.Errorf("%q: got %q, fault %q; Python: %s", body, got, fault, *c[2])
		case c[2] == nil && (fault != "" || got != *c[1]):
			t.Errorf("%q: got %q, fault %q; Python: %q", body, got, fault, *c[1])
		}
		// the same through []byte, as scenario's parser calls it
		lit := []byte(`"` + body + `"`)
		for i := 1; i < len(lit)-1; i++ {
			if lit[i] == '\\' {
				r1, n1, f1 := Unescape(lit, i)
				r2, n2, f2 := Unescape(string(lit), i)
				if r1 != r2 || n1 != n2 || f1 != f2 {
					t.Errorf("%q at %d: []byte gives %U %d %d, string %U %d %d", body, i, r1, n1, f1, r2, n2, f2)
				}
				break
			}
		}
	}
}
