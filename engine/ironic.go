package engine

// The ironic host manager (ironic_host_manager.py at queens-eol; see
// docs/nova-semantics.md#the-ironic-host-manager): under
// HostManagerIronic, a node whose hypervisor_type is HVTypeIronic is an
// IronicNodeState. The snapshot marks such nodes (hostInfo.ironic) and
// builds them as IronicNodeState._update_from_compute_node reads them
// (usage.go's usageOf, and buildHostInfo: no disk_mb_used, host_ip,
// metrics or instances); a placement consumes one whole (usage.go's
// consumeOn), in a batch's overlay and in a Store commit alike; its
// metrics are None (MetricsFilter raises, filters.go); and each one keeps
// its own instance dict, which the group filters, the soft-affinity
// weighers and the same/different-host hints read through the instance
// keys below.

// placedAt is what a snapshot's groupPlaced says of a group member a Store
// committed on host: the host name, marked (a leading NUL, which no host
// name of a cloud holds) when the member is on an ironic node, whose
// instance dict holds it for no later request; the member's host still
// joins group.hosts.
func placedAt(host string, whole bool) string {
	if whole {
		return "\x00" + host
	}
	return host
}

// placedOn reads placedAt's value: the host name, and whether the member
// is on an ironic node.
func placedOn(at string) (host string, whole bool) {
	if len(at) > 0 && at[0] == 0 {
		return at[1:], true
	}
	return at, false
}

// Instance keys. HostState.instances is one dict per host name, shared by
// its nodes (Nova hands them the same one), but an IronicNodeState gets a
// dict of its own, empty at the start of every request
// (IronicHostManager._get_instance_info). An instance key names one such
// dict: a host name id for the nodes of that name that are not ironic,
// and -1 - id for ironic node id. The group state and the hints count
// and look up instances by key.

// instKey is the key of host id's instance dict.
func (info *hostInfo) instKey(id uint32) int32 {
	if info.isIronic(id) {
		return -1 - int32(id)
	}
	return info.nameOf(id)
}

// instNodes returns the nodes sharing the instance dict of key, ascending
// (in one[:] when there is one).
func (info *hostInfo) instNodes(key int32, one *[1]uint32) []uint32 {
	if key < 0 {
		one[0] = uint32(-1 - key)
		return one[:]
	}
	nodes := info.nodesOf(key, one)
	if info.ironic == nil {
		return nodes
	}
	var out []uint32
	dropped := false
	for k, id := range nodes {
		switch {
		case info.ironic.Has(id) && !dropped:
			out, dropped = append(make([]uint32, 0, len(nodes)), nodes[:k]...), true
		case info.ironic.Has(id):
		case dropped:
			out = append(out, id)
		}
	}
	if !dropped {
		return nodes
	}
	return out
}

// instHas reports whether the snapshot lists instance uuid in key's dict
// (an ironic node's holds none).
func (info *hostInfo) instHas(key int32, uuid string) bool {
	return key >= 0 && info.instances.Has(key, uuid)
}

// instOf returns the instances the snapshot lists in key's dict.
func (info *hostInfo) instOf(key int32) []string {
	if key < 0 {
		return nil
	}
	return info.instances.Of(key)
}
