package pyval

import (
	"unicode/utf16"
	"unicode/utf8"
)

// EscapeFault says why a JSON escape sequence is malformed; each parser
// words (and places) its own message.
type EscapeFault uint8

const (
	// EscapeOK: the sequence is well formed.
	EscapeOK EscapeFault = iota
	// EscapeTruncated: the text ends right after the backslash.
	EscapeTruncated
	// EscapeUnknown: the character after the backslash starts no escape
	// (it is at the backslash's index + 1).
	EscapeUnknown
	// EscapeBadHex: \u is not followed by four hexadecimal digits (they
	// would start at the backslash's index + 2).
	EscapeBadHex
)

// Unescape decodes the JSON string escape sequence whose backslash is
// s[i], as json.loads does: it returns the character the sequence stands
// for and the index just past it. \" \\ \/ \b \f \n \r \t and \uXXXX are
// the escapes; a \uXXXX high surrogate directly followed by a \uXXXX low
// surrogate is one character, read as one sequence. Any other surrogate
// comes back as U+FFFD: Python keeps a lone surrogate in its str, a Go
// string (UTF-8) cannot hold one. On a fault r and next are zero.
func Unescape[S ~string | ~[]byte](s S, i int) (r rune, next int, fault EscapeFault) {
	if i+1 >= len(s) {
		return 0, 0, EscapeTruncated
	}
	switch e := s[i+1]; e {
	case '"', '\\', '/':
		return rune(e), i + 2, EscapeOK
	case 'b':
		return '\b', i + 2, EscapeOK
	case 'f':
		return '\f', i + 2, EscapeOK
	case 'n':
		return '\n', i + 2, EscapeOK
	case 'r':
		return '\r', i + 2, EscapeOK
	case 't':
		return '\t', i + 2, EscapeOK
	case 'u':
	default:
		return 0, 0, EscapeUnknown
	}
	r, ok := hex4(s, i+2)
	if !ok {
		return 0, 0, EscapeBadHex
	}
	next = i + 6
	if utf16.IsSurrogate(r) && next+1 < len(s) && s[next] == '\\' && s[next+1] == 'u' {
		if r2, ok := hex4(s, next+2); ok {
			if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
				return d, next + 6, EscapeOK
			}
		}
	}
	if utf16.IsSurrogate(r) {
		r = utf8.RuneError
	}
	return r, next, EscapeOK
}

// hex4 reads the four hexadecimal digits at s[i:].
func hex4[S ~string | ~[]byte](s S, i int) (rune, bool) {
	if len(s)-i < 4 {
		return 0, false
	}
	var r rune
	for j := i; j < i+4; j++ {
		var d byte
		switch c := s[j]; {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	return r, true
}
