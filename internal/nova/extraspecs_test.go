package nova

import (
	"errors"
	"testing"
)

// matchCases come from NOVA-SEMANTICS.md §5 and from running Nova 26's
// extra_specs_ops.match on each pair (exc: the exception Nova raised).
var matchCases = []struct {
	value, req string
	want       bool
	exc        string
}{
	{"1", "1", true, ""},
	{"", "1", false, ""},
	{"3", "1", false, ""},
	{"222", "2", false, ""},
	{"4", "> 2", false, ""},
	{"123", "= 123", true, ""},
	{"124", "= 123", true, ""},
	{"34", "= 234", false, ""},
	{"34", "=", false, ""},
	{"123", "s== 123", true, ""},
	{"1234", "s== 123", false, ""},
	{"1000", "s>= 234", false, ""},
	{"2", "s< 12", false, ""},
	{"12", "s> 2", false, ""},
	{"12311321", "<in> 11", true, ""},
	{"12310321", "<in> 11", false, ""},
	{"12", "<or> 11 <or> 12", true, ""},
	{"13", "<or> 11 <or> 12", false, ""},
	{"2", "<= 10", true, ""},
	{"3", ">= 1", true, ""},
	{"['aes', 'mmx', 'aux']", "<all-in> aes mmx", true, ""},
	{"['aes', 'mmx', 'aux']", "<all-in> txt aes", false, ""},
	{"abc", ">= 2", false, "ValueError"},
	{"2", ">= abc", false, "ValueError"},
	{"x", "<or>", false, "IndexError"},
	{"x", "<or> x", true, ""},
	{"y", "<or> x <or>", false, ""},
	{"b", "<or> a b", false, ""},
	{"c", "<or> a b c", true, ""},
	{"1", "  1  ", false, ""},
	{"1_000", "== 1000", true, ""},
	{" 5 ", "== 5", true, ""},
	{"inf", ">= 1e308", true, ""},
	{"nan", "== nan", false, ""},
	{"nan", "!= nan", true, ""},
	{"True", "True", true, ""},
	{"True", "s== True", true, ""},
	{"1.0", "== 1", true, ""},
	{"1.0", "s== 1", false, ""},
	{"a", "s!= b", true, ""},
	{"é", "s> z", true, ""},
	{"16.0", ">= 16", true, ""},
	{"x", "<in>", false, ""},
	{"x", "<all-in>", false, ""},
	{"ab", "<all-in> a\x1cb", true, ""},
	{"1", "\x1c== 1", true, ""},
	{"", "", true, ""},
	{"a b", "a  b", false, ""},
	{"a b", "a b", true, ""},
	{"10", "s<= 9", true, ""},
	{"4", "< 5", false, ""},
	{"4", "!= 4.0", false, ""},
	{"abc", "<in> ", false, ""},
}

func TestMatch(t *testing.T) {
	for _, tc := range matchCases {
		t.Run(tc.value+"|"+tc.req, func(t *testing.T) {
			got, err := MatchErr(tc.value, tc.req)
			var pe *ErrPython
			switch {
			case tc.exc != "":
				if !errors.As(err, &pe) || pe.Exception != tc.exc {
					t.Fatalf("MatchErr(%q, %q) error = %v, want %s", tc.value, tc.req, err, tc.exc)
				}
			case err != nil:
				t.Fatalf("MatchErr(%q, %q) unexpected error %v", tc.value, tc.req, err)
			case got != tc.want:
				t.Fatalf("MatchErr(%q, %q) = %v, want %v", tc.value, tc.req, got, tc.want)
			}
			if Match(tc.value, tc.req) != (tc.want && tc.exc == "") {
				t.Fatalf("Match(%q, %q) disagrees with MatchErr", tc.value, tc.req)
			}
		})
	}
}

func BenchmarkMatch(b *testing.B) {
	if !Match("12", "<or> 11 <or> 12") || !Match("2048", ">= 1024") {
		b.Fatal("benchmark inputs do not match")
	}
	b.ReportAllocs()
	for b.Loop() {
		Match("2048", ">= 1024")
		Match("12", "<or> 11 <or> 12")
		Match("['aes', 'mmx']", "<all-in> aes mmx")
	}
}
