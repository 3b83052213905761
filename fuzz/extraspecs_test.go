package fuzz

import (
	"errors"
	"strings"
	"testing"

	gofuzz "github.com/google/gofuzz"

	"github.com/placer/placer/internal/nova"
)

// specCase is one extra_specs_ops.match call: a host value and a
// requirement made of an operator and words joined by whitespace.
type specCase struct {
	Value string
	Op    string
	Words []string
	Sep   string
}

// word is an operand: mostly from specWords, sometimes fuzzer text.
func word(c gofuzz.Continue) string {
	if chance(c, 0.15) {
		return c.RandString()
	}
	return pick(c, specWords)
}

var specCaseFill = func(s *specCase, c gofuzz.Continue) {
	s.Value = word(c)
	s.Op = pick(c, specOps)
	if chance(c, 0.1) {
		s.Op = word(c)
	}
	s.Words = nil
	for i := c.Intn(5); i > 0; i-- {
		s.Words = append(s.Words, word(c))
	}
	s.Sep = pick(c, []string{" ", " ", "  ", "\t", "\n", "\u00a0", "\u2003", "\x1c"})
}

func (s specCase) req() string {
	parts := s.Words
	if s.Op != "" {
		parts = append([]string{s.Op}, parts...)
	}
	return strings.Join(parts, s.Sep)
}

// FuzzExtraSpecs checks nova.MatchErr against matchModel, an independent
// transcription of nova/scheduler/filters/extra_specs_ops.py, and the
// operators' algebra: s== symmetric, s!= its negation, s< the mirror of
// s>, <or> any of the alternatives, <in> substring, <all-in> every <in>,
// "=" the same as ">=".
func FuzzExtraSpecs(f *testing.F) {
	// The bytes drive gofuzz's choices, not a spec's text: a plain go
	// test checks the cases these deterministic inputs make, every
	// operator among them (TestModelSeedsCover).
	f.Add([]byte{})
	for seed := uint64(1); seed <= modelSeeds; seed++ {
		f.Add(seedBytes(seed, modelSeedLen))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var s specCase
		gofuzz.NewFromGoFuzz(data).NilChance(0).Funcs(specCaseFill).Fuzz(&s)
		req := s.req()
		got, err := nova.MatchErr(s.Value, req)
		want, wantExc := matchModel(s.Value, req)
		var pe *nova.ErrPython
		switch {
		case err != nil && !errors.As(err, &pe):
			t.Fatalf("MatchErr(%q, %q): error %T %v is not a Python exception", s.Value, req, err, err)
		case err != nil && pe.Exception != wantExc, err == nil && wantExc != "":
			t.Fatalf("MatchErr(%q, %q) = %v, %v; the model raises %q", s.Value, req, got, err, wantExc)
		case err == nil && got != want:
			t.Fatalf("MatchErr(%q, %q) = %v; the model says %v", s.Value, req, got, want)
		}
		if m := nova.Match(s.Value, req); m != (got && err == nil) {
			t.Fatalf("Match(%q, %q) = %v, MatchErr = %v, %v", s.Value, req, m, got, err)
		}
		checkSpecAlgebra(t, s)
	})
}

// checkSpecAlgebra checks the operator identities for single words.
func checkSpecAlgebra(t *testing.T, s specCase) {
	v := s.Value
	words := pySplit(strings.Join(s.Words, " "))
	if len(pySplit(v)) != 1 || pySplit(v)[0] != v || len(words) == 0 {
		return
	}
	w := words[0]
	m := func(value, req string) bool {
		ok, err := nova.MatchErr(value, req)
		if err != nil {
			t.Fatalf("MatchErr(%q, %q): %v", value, req, err)
		}
		return ok
	}
	if m(v, "s== "+w) != m(w, "s== "+v) {
		t.Fatalf("s== is not symmetric for %q, %q", v, w)
	}
	if m(v, "s!= "+w) == m(v, "s== "+w) {
		t.Fatalf("s!= is not the negation of s== for %q, %q", v, w)
	}
	for _, pair := range [][2]string{{"s<", "s>"}, {"s<=", "s>="}} {
		if m(v, pair[0]+" "+w) != m(w, pair[1]+" "+v) {
			t.Fatalf("%q %s %q differs from %q %s %q", v, pair[0], w, w, pair[1], v)
		}
	}
	any, all := false, true
	alts := make([]string, len(words))
	for i, x := range words {
		any = any || v == x
		all = all && strings.Contains(v, x)
		alts[i] = "<or> " + x
	}
	if got := m(v, strings.Join(alts, " ")); got != any {
		t.Fatalf("%q against %q = %v, want any of the alternatives (%v)", v, strings.Join(alts, " "), got, any)
	}
	if got := m(v, "<in> "+w); got != strings.Contains(v, w) {
		t.Fatalf("%q <in> %q = %v", v, w, got)
	}
	if got := m(v, "<all-in> "+strings.Join(words, " ")); got != all {
		t.Fatalf("%q <all-in> %q = %v, want %v", v, words, got, all)
	}
	a, errA := nova.MatchErr(v, "= "+w)
	b, errB := nova.MatchErr(v, ">= "+w)
	if a != b || (errA == nil) != (errB == nil) {
		t.Fatalf("%q = %q is %v, %v but >= is %v, %v", v, w, a, errA, b, errB)
	}
}

// pyWhitespace is Python 3's str.isspace() set, as str.split() uses it.
func pyWhitespace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0x1c, 0x1d, 0x1e, 0x1f, 0x85, 0xa0, 0x1680,
		0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// pySplit is str.split().
func pySplit(s string) []string {
	var out []string
	start := -1
	for i, r := range s {
		if pyWhitespace(r) {
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}

// matchModel is extra_specs_ops.match(value, req) line by line; the
// exception class it raises, if any ("" when none). float() is
// nova.PyFloat.
func matchModel(value, req string) (bool, string) {
	words := pySplit(req)
	var op string
	known := false
	if len(words) > 0 {
		op, words = words[0], words[1:]
		switch op {
		case "=", "<in>", "<all-in>", "==", "!=", ">=", "<=", "s==", "s!=", "s<", "s<=", "s>", "s>=":
			known = true
		}
	}
	if op != "<or>" && !known {
		return value == req, ""
	}
	if op == "<or>" {
		for {
			if len(words) == 0 {
				return false, "IndexError" // words.pop(0) on []
			}
			w := words[0]
			words = words[1:]
			if w == value {
				return true, ""
			}
			if len(words) == 0 {
				break
			}
			words = words[1:]
			if len(words) == 0 {
				break
			}
		}
		return false, ""
	}
	if len(words) == 0 {
		return false, ""
	}
	y := words[0]
	switch op {
	case "<in>":
		return strings.Contains(value, y), ""
	case "<all-in>":
		for _, w := range words {
			if !strings.Contains(value, w) {
				return false, ""
			}
		}
		return true, ""
	case "s==":
		return value == y, ""
	case "s!=":
		return value != y, ""
	case "s<":
		return value < y, ""
	case "s<=":
		return value <= y, ""
	case "s>":
		return value > y, ""
	case "s>=":
		return value >= y, ""
	}
	a, ok := nova.PyFloat(value)
	if !ok {
		return false, "ValueError"
	}
	b, ok := nova.PyFloat(y)
	if !ok {
		return false, "ValueError"
	}
	switch op {
	case "==":
		return a == b, ""
	case "!=":
		return a != b, ""
	case "<=":
		return a <= b, ""
	}
	return a >= b, "" // "=" and ">="
}
