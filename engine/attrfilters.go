package engine

import (
	"errors"
	"slices"
	"strings"
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

// isolatedMask is IsolatedHostsFilter's mask (nil: every host passes):
// whether the image is isolated is the request's, whether a host is the
// snapshot's (a memoised mask of the isolated hosts).
func isolatedMask(b *batch) *bitmap.Set {
	cfg := b.cfg
	imgIso := b.req.Image.ID != nil && slices.Contains(cfg.IsolatedImages, *b.req.Image.ID)
	var keepIso, keepOther bool // which hosts pass: isolated ones, others
	switch {
	case len(cfg.IsolatedImages) == 0:
		keepIso, keepOther = !cfg.RestrictIsolatedHostsToIsolatedImages, true
	case cfg.RestrictIsolatedHostsToIsolatedImages:
		keepIso, keepOther = imgIso, !imgIso
	default:
		keepIso, keepOther = true, !imgIso
	}
	switch {
	case keepIso && keepOther:
		return nil
	case keepIso:
		return isolatedHosts(b, true)
	case keepOther:
		return isolatedHosts(b, false)
	}
	return b.set() // none
}

// isolatedHosts is the memoised set of the hosts named in isolated_hosts
// (Nova compares host names exactly), or with !in its complement.
func isolatedHosts(b *batch, in bool) *bitmap.Set {
	key := "isolated\x00out"
	if in {
		key = "isolated\x00in"
	}
	return memoMask(b, key, func(m *bitmap.Set) {
		info := b.s.info
		for _, name := range b.cfg.IsolatedHosts {
			for id := range info.byHostLower(strings.ToLower(name)).All() {
				if info.hostOf(id) == name {
					m.Add(id)
				}
			}
		}
		if !in {
			all := bitmap.NewSet(b.s.n)
			all.Fill()
			all.AndNot(m)
			m.CopyFrom(all)
		}
	})
}

// imagePropsVerdict is ImagePropertiesFilter's verdict for b's image,
// judged once per distinct (supported_instances, hypervisor_version)
// signature on a host of it and memoised by what the filter reads of the
// image.
func imagePropsVerdict(b *batch) *verdict {
	info := b.s.info
	def := b.cfg.ImagePropertiesDefaultArchitecture
	key := "image\x00" + nova.ImagePropertiesSignature(b.img, def)
	return memoVerdict(b, key, func(pass, raise *bitmap.Set) {
		codeVerdictInto(b, pass, raise, &info.hvSig, len(info.hvSigHost), func(sig int) (bool, bool, error) {
			rep := info.hvSigRep[sig]
			ok, err := nova.ImagePropertiesCheck(b.img, def, info.supported(rep), info.hvVersion(rep))
			return true, ok, err
		})
	})
}

// imagePropsPlan is ImagePropertiesFilter's fused stage: its verdict's
// mask, unless it raises somewhere.
func imagePropsPlan(b *batch) (stage, bool) {
	if imagePropsKeepAll(b) {
		return stage{}, true
	}
	return imagePropsVerdict(b).stage()
}

// imagePropsApply is ImagePropertiesFilter over set: Nova evaluates hosts
// in order and raises at the first that raises.
func imagePropsApply(b *batch, set *bitmap.Set) error {
	if imagePropsKeepAll(b) {
		return nil
	}
	id, raised := imagePropsVerdict(b).keep(set)
	if !raised {
		return nil
	}
	info := b.s.info
	_, err := nova.ImagePropertiesCheck(b.img, b.cfg.ImagePropertiesDefaultArchitecture, info.supported(id), info.hvVersion(id))
	return raisedAt(ImagePropertiesFilter, err)
}

// raisedAt is the error of a filter whose verdict raises at a host: err,
// Nova's exception there, which a verdict's build saw (nil would be a
// bug).
func raisedAt(filter string, err error) error {
	if err == nil {
		return errors.New("engine: " + filter + ": no exception at the host where it raises")
	}
	return pyError(err)
}

// attrsPool keeps the host views jsonPasses fills.
var attrsPool = sync.Pool{New: func() any { return new(nova.HostAttrs) }}

// jsonPasses is JsonFilter's query on host id's view.
func jsonPasses(b *batch, id uint32) (bool, error) {
	h := attrsPool.Get().(*nova.HostAttrs)
	defer attrsPool.Put(h)
	b.attrs(id, h)
	ok, err := b.query.Eval(h)
	return ok, pyError(err)
}
