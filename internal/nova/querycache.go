package nova

import "sync"

// Parsed JsonFilter queries, shared by text. A cloud's callers tend to
// send a few query texts again and again; parsing one and compiling it to
// column predicates (Compile) cost the rich request several µs, more than
// its JsonFilter pass. SharedQuery returns one *Query per text, whose
// Compile computes its result once: a Query and a QueryNode are never
// modified once made, so any number of batches may read them at once.

// maxSharedQueries bounds the texts kept; past it, the table starts over.
const maxSharedQueries = 1024

var sharedQueries struct {
	mu sync.Mutex
	m  map[string]*Query
}

// compileMemo is a shared Query's compiled form.
type compileMemo struct {
	once sync.Once
	node *QueryNode
	ok   bool
}

// SharedQuery is ParseQuery, returning the same *Query for the same text
// (while the table keeps it), its compiled form computed once.
func SharedQuery(text string) *Query {
	if text == "" {
		return nil
	}
	sharedQueries.mu.Lock()
	q := sharedQueries.m[text]
	sharedQueries.mu.Unlock()
	if q != nil {
		return q
	}
	q = ParseQuery(text)
	q.memo = &compileMemo{}
	sharedQueries.mu.Lock()
	defer sharedQueries.mu.Unlock()
	if o := sharedQueries.m[text]; o != nil {
		return o // another caller's, parsed meanwhile
	}
	if sharedQueries.m == nil || len(sharedQueries.m) >= maxSharedQueries {
		sharedQueries.m = make(map[string]*Query)
	}
	sharedQueries.m[text] = q
	return q
}
