package pyval

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// TestUnescapeFaults: the character, the index past the sequence and the
// fault, at the edges the parsers word their messages from (a string
// literal always ends in a quote, so the Python table cannot reach a
// backslash at the very end).
func TestUnescapeFaults(t *testing.T) {
	for _, tc := range []struct {
		s     string
		i     int
		r     rune
		next  int
		fault EscapeFault
	}{
		{`\`, 0, 0, 0, EscapeTruncated},
		{`ab\`, 2, 0, 0, EscapeTruncated},
		{`\x`, 0, 0, 0, EscapeUnknown},
		{`\U0041`, 0, 0, 0, EscapeUnknown},
		{`\u`, 0, 0, 0, EscapeBadHex},
		{`\u004`, 0, 0, 0, EscapeBadHex},
		{`\u004g`, 0, 0, 0, EscapeBadHex},
		{`\u+041`, 0, 0, 0, EscapeBadHex},
		{`a\u0041b`, 1, 'A', 7, EscapeOK},
		{`\u00E9`, 0, 'é', 6, EscapeOK},
		{`\n`, 0, '\n', 2, EscapeOK},
		{`\/x`, 0, '/', 2, EscapeOK},
		{`\ud83d\ude00`, 0, '😀', 12, EscapeOK},
		{`\uD83D\uDE00!`, 0, '😀', 12, EscapeOK},
		{`\ud83d`, 0, '\ufffd', 6, EscapeOK},
		{`\ud83d\u`, 0, '\ufffd', 6, EscapeOK},           // the next escape is bad, on its own
		{`\ud83d\ud83d\ude00`, 0, '\ufffd', 6, EscapeOK}, // high, then a pair
		{`\ude00\ud83d`, 0, '\ufffd', 6, EscapeOK},       // low first: lone
		{`\ud83dx\ude00`, 0, '\ufffd', 6, EscapeOK},
		{`\ud83dxude00`, 0, '\ufffd', 6, EscapeOK},
		{`\ud83d\\ude00`, 0, '\ufffd', 6, EscapeOK},
		{`\udfff`, 0, '\ufffd', 6, EscapeOK},
		{`\ud7ff`, 0, '\ud7ff', 6, EscapeOK},
		{`\ue000`, 0, '\ue000', 6, EscapeOK},
	} {
		r, next, fault := Unescape(tc.s, tc.i)
		if r != tc.r || next != tc.next || fault != tc.fault {
			t.Errorf("Unescape(%q, %d) = %U, %d, %d; want %U, %d, %d", tc.s, tc.i, r, next, fault, tc.r, tc.next, tc.fault)
		}
		br, bnext, bfault := Unescape([]byte(tc.s), tc.i)
		if br != r || bnext != next || bfault != fault {
			t.Errorf("Unescape([]byte(%q), %d) = %U, %d, %d; the string gives %U, %d, %d", tc.s, tc.i, br, bnext, bfault, r, next, fault)
		}
	}
}

// FuzzUnescape: a string literal read with Unescape is what encoding/json
// reads (which also turns a lone surrogate into U+FFFD), or both refuse it.
func FuzzUnescape(f *testing.F) {
	for _, s := range []string{`a\u0041`, `\ud83d\ude00`, `\ud83d\ud83d\ude00`, `\ude00\ud83d`, `\ud800x`, `\x`, `\u12`, `é\n\t\"\\\/`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		if !utf8.ValidString(body) {
			return // encoding/json would replace bad bytes; the parsers check UTF-8 themselves
		}
		got, fault := decodeLiteral(body)
		var want string
		err := json.Unmarshal([]byte(`"`+body+`"`), &want)
		if (fault == "") != (err == nil) || (err == nil && got != want) {
			t.Fatalf("%q: Unescape reads %q (fault %q), encoding/json %q (%v)", body, got, fault, want, err)
		}
	})
}
