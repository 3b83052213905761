package novacases

import "github.com/placer/placer/engine"

// matchCases are extra_specs_ops.match(value, req) cases
// (nova/tests/unit/scheduler/filters/test_extra_specs_ops.py), shown
// through ComputeCapabilitiesFilter: the host's stats hold value under
// "foo", the flavor's extra spec "foo" holds req.
func matchCases() []Case {
	tests := []struct {
		name, value, req string
		want             bool
	}{
		{"equal", "1", "1", true},
		{"empty-value", "", "1", false},
		{"not-equal", "3", "1", false},
		{"not-a-prefix", "222", "2", false},
		{"no-numeric-greater", "4", "> 2", false},
		{"eq-means-ge-equal", "123", "= 123", true},
		{"eq-means-ge-greater", "124", "= 123", true},
		{"eq-means-ge-less", "34", "= 234", false},
		{"operator-without-operand", "34", "=", false},
		{"s==-equal", "123", "s== 123", true},
		{"s==-not-equal", "1234", "s== 123", false},
		{"s>=-is-lexical", "1000", "s>= 234", false},
		{"s<-is-lexical", "2", "s< 12", false},
		{"s>-is-lexical", "12", "s> 2", false},
		{"in-substring", "12311321", "<in> 11", true},
		{"in-not-substring", "12310321", "<in> 11", false},
		{"or-second", "12", "<or> 11 <or> 12", true},
		{"or-none", "13", "<or> 11 <or> 12", false},
		{"le-numeric", "2", "<= 10", true},
		{"ge-numeric", "3", ">= 1", true},
		{"all-in-all", "['aes', 'mmx', 'aux']", "<all-in> aes mmx", true},
		{"all-in-one-missing", "['aes', 'mmx', 'aux']", "<all-in> txt aes", false},
		{"ne-numeric", "3", "!= 4", true},
		{"eqeq-numeric", "3.0", "== 3", true},
		{"s!=", "abc", "s!= abd", true},
		{"s<=", "abc", "s<= abc", true},
	}
	var out []Case
	for _, tc := range tests {
		req := request(1)
		req.Flavor.ExtraSpecs = map[string]string{"foo": tc.req}
		out = append(out, single("match/"+tc.name, engine.ComputeCapabilitiesFilter,
			host("h1", stats("foo", tc.value)), req, tc.want, engine.Limits{}))
	}
	return out
}
