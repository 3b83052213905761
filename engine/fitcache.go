package engine

import (
	"sync"
	"sync/atomic"
)

// The resource filters' verdicts kept across requests. A resource rule's
// column pass (resourceRule.pass) reads a shard's columns, the request's
// amount of the one resource it checks and, for the plain io-ops and
// instance rules, a configured limit: nothing else. A Store's commits
// leave a shard's columns alone until a compaction copies it (delta.go;
// the hosts changed meanwhile sit in the snapshot's usage delta, which
// every batch re-tests host by host), so the verdicts of one rule and one
// amount over one shard hold for as long as the snapshots hold that very
// shard. Requests repeat a handful of flavors: the first to pass a shard
// keeps its verdicts (every host of the shard judged), the next ones AND
// them into their candidates instead of running the pass.

// fitKey names a rule's verdicts for one request amount: its index in
// KnownFilters, the amount it reads (claimAmount) and its configured
// limit (0 where it reads none).
type fitKey struct {
	filter        int
	amount, limit int64
}

// fitCache keeps a snapshot lineage's verdicts, by fitKey.
//
// Invariants: at most maxFitEntries entries; an entry's shards[k], once
// set, holds the verdicts of its rule and amount over every host of the
// shard whose id is shard (bit j: host j passes on its columns), and is
// never changed: another shard in place k gets a new fitShard. It keeps
// no shard alive (ids only).
type fitCache struct {
	mu      sync.Mutex
	entries map[fitKey]*fitEntry
	order   []fitKey // oldest first
}

// maxFitEntries bounds the entries kept per lineage, shared by the
// enabled resource filters (a flavor catalogue of a few dozen amounts for
// each of them), the oldest made evicted first: at most 512 bytes per
// 4,096 hosts each.
const maxFitEntries = 256

// fitEntry is one rule's verdicts for one amount, per shard.
type fitEntry struct {
	rule   *resourceRule
	shards []atomic.Pointer[fitShard]
}

// fitShard is the verdict of every host of the shard of id shard.
type fitShard struct {
	shard uint64
	words []uint64
}

// entry returns the entry of key for a snapshot of n shards, made empty
// when missing (evicting the oldest past maxFitEntries).
func (c *fitCache) entry(key fitKey, rule *resourceRule, n int) *fitEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.entries[key]; e != nil && len(e.shards) == n {
		return e
	}
	if c.entries == nil {
		c.entries = map[fitKey]*fitEntry{}
	}
	if _, ok := c.entries[key]; !ok {
		if len(c.order) == maxFitEntries {
			delete(c.entries, c.order[0])
			c.order = c.order[1:]
		}
		c.order = append(c.order, key)
	}
	e := &fitEntry{rule: rule, shards: make([]atomic.Pointer[fitShard], n)}
	c.entries[key] = e
	return e
}

// claimAmount is the amount of c that rule r's pass reads.
func (r *resourceRule) claimAmount(c *Claim) int64 {
	switch r.res {
	case resRAM, resExactRAM:
		return c.MemoryMB
	case resCore, resExactCore:
		return c.VCPUs
	case resDisk, resExactDisk:
		return c.DiskRequestMB
	}
	return 0
}

// fitEntryOf returns the kept verdicts of resource filter f's rule for b's
// request, or nil when b is not to use them (rankOptions.noFitCache).
func (b *batch) fitEntryOf(f *filterImpl) *fitEntry {
	rule := resourceRules[f.name]
	if rule == nil || b.opts.noFitCache {
		return nil
	}
	key := fitKey{filter: f.idx, amount: rule.claimAmount(&b.claim)}
	if rule.limits == nil && (rule.res == resIOOps || rule.res == resInstances) {
		key.limit = rule.configLimit(b.cfg)
	}
	return lineageOf(b.s.info).fits.entry(key, rule, len(b.s.shards))
}

// pass clears in words (shard k of one of b's candidate sets) the bits of
// the hosts failing e's rule, as rule.pass does: from the verdicts kept
// for that very shard, else by judging every host of the shard and
// keeping the verdicts for the next request.
func (e *fitEntry) pass(b *batch, k int, words []uint64) {
	sh := b.s.shards[k]
	fs := e.shards[k].Load()
	kept := fs != nil && fs.shard == sh.id
	if h := b.opts.hooks; h != nil && h.afterFitPass != nil {
		h.afterFitPass(kept)
	}
	if !kept {
		all := make([]uint64, len(words))
		for i := range all {
			if rest := sh.hostCount() - i*64; rest > 0 {
				all[i] = fullWord(rest)
			}
		}
		e.rule.pass(sh, &b.claim, b.cfg, all)
		fs = &fitShard{shard: sh.id, words: all}
		e.shards[k].Store(fs)
	}
	andWords(words, fs.words)
}
