package nova

import (
	"fmt"
	"reflect"
	"sync"
	"testing"
)

// TestSharedQuery checks SharedQuery: one *Query per text, whose memoised
// Compile gives what an unshared parse of the text compiles to; a text
// that fails to parse raises each time; concurrent callers (run under
// -race in CI) share one compiled form; the table starts over when full.
func TestSharedQuery(t *testing.T) {
	texts := []string{
		`[">=", "$free_ram_mb", 1024]`,
		`["and", [">=", "$free_ram_mb", 1024], ["=", "$hypervisor_type", "QEMU"]]`,
		`["not", ["<", "$free_disk_mb", 200]]`,
		`["=", "$service.host", "h1"]`,
	}
	for _, text := range texts {
		q := SharedQuery(text)
		if again := SharedQuery(text); again != q {
			t.Errorf("%s: a second SharedQuery returned another *Query", text)
		}
		plain := ParseQuery(text)
		want, wantOK := plain.Compile()
		got, gotOK := q.Compile()
		if gotOK != wantOK || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: shared Compile %+v %v, unshared %+v %v", text, got, gotOK, want, wantOK)
		}
		if again, _ := q.Compile(); again != got {
			t.Errorf("%s: a second Compile of the shared query computed it again", text)
		}
	}
	if q := SharedQuery(""); q != nil {
		t.Errorf(`SharedQuery("") = %v; want nil`, q)
	}
	for range 2 {
		if _, err := SharedQuery(`[">=", "$free_ram_mb"`).Eval(jsonHost()); err == nil {
			t.Error("a query that is not JSON raised nothing")
		}
	}

	var wg sync.WaitGroup
	nodes := make([]*QueryNode, 8)
	for i := range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			nodes[i], _ = SharedQuery(`["or", [">", "$vcpus_used", 4], ["<", "$num_instances", 2]]`).Compile()
		}()
	}
	wg.Wait()
	for _, n := range nodes[1:] {
		if n != nodes[0] {
			t.Fatal("concurrent callers compiled the shared query more than once")
		}
	}

	first := SharedQuery(texts[0])
	for i := range maxSharedQueries {
		SharedQuery(fmt.Sprintf(`[">=", "$free_ram_mb", %d]`, 100000+i))
	}
	sharedQueries.mu.Lock()
	n := len(sharedQueries.m)
	sharedQueries.mu.Unlock()
	if n > maxSharedQueries {
		t.Errorf("the table holds %d texts, more than %d", n, maxSharedQueries)
	}
	if again := SharedQuery(texts[0]); again == first {
		t.Error("the table kept a text past a start over")
	} else if !reflect.DeepEqual(again.root, first.root) {
		t.Error("a text parsed again after a start over differs")
	}
}
