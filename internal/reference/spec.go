package reference

import (
	"github.com/placer/placer/engine"
	"github.com/placer/placer/internal/nova"
)

// RequestSpec is Nova's RequestSpec as the filters and weighers of one
// request read it, plus the server group as _consume_selected_host changes
// it.
type RequestSpec struct {
	// Cfg is the scheduler configuration.
	Cfg *engine.Config
	// Req is the prepared request (defaults filled in).
	Req *engine.Request
	// InstanceUUID is spec_obj.instance_uuid: the instance being placed.
	InstanceUUID string
	// Image is the request's image after ImageMeta.from_dict.
	Image nova.ImageRequest
	// Query is the parsed JsonFilter hint (nil: none).
	Query *nova.Query
	// Group is the server group, nil when the request has none.
	Group *Group
}

// Group is the request's InstanceGroup as the scheduler changes it.
type Group struct {
	// Policy is affinity, anti-affinity, soft-affinity or
	// soft-anti-affinity.
	Policy string
	// MaxServerPerHost is rules['max_server_per_host'], else 1.
	MaxServerPerHost int
	// Hosts is group.hosts: a list of host names, appended to on every
	// choice.
	Hosts []string
	// Members is group.members: the given members plus the request's own
	// instances.
	Members map[string]bool
}

// newRequestSpec digests a prepared request as RequestSpec.from_components
// builds it.
func newRequestSpec(cfg *engine.Config, req *engine.Request) (*RequestSpec, error) {
	s := &RequestSpec{Cfg: cfg, Req: req}
	img, err := nova.ParseImage(req.Image.Properties)
	if err != nil {
		return nil, &engine.ValidationError{Field: "request.image.properties", Msg: err.Error()}
	}
	s.Image = img
	s.Query = nova.ParseQuery(req.SchedulerHints.Query) // one that is not JSON raises in JsonFilter
	if g := req.InstanceGroup; g != nil {
		grp := &Group{
			Policy:           g.Policy,
			MaxServerPerHost: g.MaxServerPerHost,
			Hosts:            append([]string(nil), g.Hosts...),
			Members:          map[string]bool{},
		}
		if grp.MaxServerPerHost == 0 {
			grp.MaxServerPerHost = 1
		}
		for _, m := range g.Members {
			grp.Members[m] = true
		}
		for _, u := range req.InstanceUUIDs {
			grp.Members[u] = true
		}
		s.Group = grp
	}
	return s, nil
}

// membersOn is |host_state.instances ∩ group.members|.
func (s *RequestSpec) membersOn(h *HostState) int {
	n := 0
	for _, u := range h.Instances.List() {
		if s.Group.Members[u] {
			n++
		}
	}
	return n
}
