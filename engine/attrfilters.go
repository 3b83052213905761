package engine

import (
	"cmp"
	"fmt"
	"slices"
	"sync"

	"github.com/placer/placer/bitmap"
	"github.com/placer/placer/internal/nova"
)

// The filters that read what a host reports of itself (hypervisor
// attributes, capabilities, the JsonFilter's host state) or the isolation
// lists: ImagePropertiesFilter, ComputeCapabilitiesFilter, JsonFilter and
// IsolatedHostsFilter, with the keepsAll tests that spare them a pass.

// noExtraSpecs reports that the flavor has no extra specs, which the
// extra-spec filters pass without looking at a host.
func noExtraSpecs(b *batch) bool { return len(b.req.Flavor.ExtraSpecs) == 0 }

// imagePropsKeepAll reports that the image requests no architecture,
// hypervisor type or VM mode (and no default architecture is set), which
// ImagePropertiesFilter passes without looking at a host.
func imagePropsKeepAll(b *batch) bool {
	return nova.ImageRequestsNothing(b.img, b.cfg.ImagePropertiesDefaultArchitecture)
}

// isolatedPasses is IsolatedHostsFilter on host id.
func isolatedPasses(b *batch, id uint32) (bool, error) {
	cfg := b.cfg
	hostIso := slices.Contains(cfg.IsolatedHosts, b.s.info.hostOf(id))
	if len(cfg.IsolatedImages) == 0 {
		return !cfg.RestrictIsolatedHostsToIsolatedImages || !hostIso, nil
	}
	imgIso := b.req.Image.ID != nil && slices.Contains(cfg.IsolatedImages, *b.req.Image.ID)
	if cfg.RestrictIsolatedHostsToIsolatedImages {
		return imgIso == hostIso, nil
	}
	return !imgIso || hostIso, nil
}

// imagePropsApply evaluates ImagePropertiesFilter once per distinct
// (supported_instances, hypervisor_version) signature, on a host of it
// that is in play, and removes the hosts of the failing signatures through
// the signature index. Nova evaluates hosts in order and raises at the
// first that raises; signatures are tried in order of their first host in
// play, so the same exception surfaces.
func imagePropsApply(b *batch, set *bitmap.Set) error {
	if imagePropsKeepAll(b) {
		return nil
	}
	info := b.s.info
	def := b.cfg.ImagePropertiesDefaultArchitecture
	key := fmt.Sprintf("image\x00%#v\x00%#v", def != nil, b.req.Image.Properties)
	if def != nil {
		key += "\x00" + *def
	}
	if m := memoMask(b, key, func(m *bitmap.Set) bool {
		// Every signature passes or fails whichever of its hosts is
		// asked; if none raises, the mask of the passing ones is the
		// filter's whole effect.
		pass := make([]uint64, len(info.hvSigHost))
		for sig, rep := range info.hvSigRep {
			ok, err := nova.ImagePropertiesCheck(b.img, def, info.supported(rep), info.hvVersion(rep))
			if err != nil {
				return false
			}
			if ok {
				pass[sig] = 1
			}
		}
		columnMaskInto(b, m, &info.hvSig, pass)
		return true
	}); m != nil {
		set.And(m)
		return nil
	}
	type trial struct {
		sig   int
		first uint32
	}
	var trials []trial
	for sig, hosts := range info.hvSigHost {
		it := hosts.Iterator()
		for it.HasNext() {
			if id := it.Next(); set.Has(id) {
				trials = append(trials, trial{sig, id})
				break
			}
		}
	}
	slices.SortFunc(trials, func(x, y trial) int { return cmp.Compare(x.first, y.first) })
	for _, t := range trials {
		ok, err := nova.ImagePropertiesCheck(b.img, def, info.supported(t.first), info.hvVersion(t.first))
		if err != nil {
			return pyError(err)
		}
		if !ok {
			it := info.hvSigHost[t.sig].Iterator()
			for it.HasNext() {
				set.Remove(it.Next())
			}
		}
	}
	return nil
}

// attrsPool keeps the host views jsonPasses fills.
var attrsPool = sync.Pool{New: func() any { return new(nova.HostAttrs) }}

// capabilitiesApply is ComputeCapabilitiesFilter over set: integer
// comparisons on the columns, else host by host on its view.
func capabilitiesApply(b *batch, set *bitmap.Set) error {
	if noExtraSpecs(b) {
		return nil
	}
	specs := b.req.Flavor.ExtraSpecs
	if caps, ok := nova.IntCapabilities(specs); ok {
		// Numeric comparisons of integer attributes: read the columns,
		// no host view, no text.
		return bitmap.ForShards(b.ctx, set.Len(), func(k int) error {
			for _, c := range caps {
				intCapPass(b, c, k, set.ShardWordsOf(k))
			}
			return nil
		})
	}
	// Host by host, with one memo per shard: hosts of one hardware model
	// share their cpu_info text and matches.
	return applyHostWith(b, set, func() func(*batch, uint32) (bool, error) {
		cache := nova.NewCapCache(specs)
		var h nova.HostAttrs
		return func(b *batch, id uint32) (bool, error) {
			b.attrs(id, &h)
			ok, err := nova.CapabilitiesCheckCached(cache, &h)
			return ok, pyError(err)
		}
	})
}

// jsonPasses is JsonFilter's query on host id's view.
func jsonPasses(b *batch, id uint32) (bool, error) {
	h := attrsPool.Get().(*nova.HostAttrs)
	defer attrsPool.Put(h)
	b.attrs(id, h)
	ok, err := b.query.Eval(h)
	return ok, pyError(err)
}
