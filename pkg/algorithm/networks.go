package algorithm

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// network is one CIDR of a shoot or seed with the role it plays.
type network struct {
	kind   string // "node", "pod" or "service"
	prefix netip.Prefix
	// defaulted marks a shoot network taken from the seed's shootDefaults.
	defaulted bool
	// observed marks a shoot network read from status.networking: the one
	// the shoot really runs with.
	observed bool
	// reserved names a range Gardener keeps for itself (see reservedRanges).
	reserved string
}

// reservedRanges are the ranges Gardener maps the networks of seed and shoot
// into across the VPN between them: a shoot network in one of them is refused
// on every seed, whatever its family.
var reservedRanges = []network{
	{reserved: "default vpn network", prefix: netip.MustParsePrefix("fd8f:6d53:b97a:1::/96")},
	{reserved: "reserved kube-apiserver mapping range", prefix: netip.MustParsePrefix("240.0.0.0/8")},
	{reserved: "reserved seed pod network mapping range", prefix: netip.MustParsePrefix("241.0.0.0/8")},
	{reserved: "reserved shoot node network mapping range", prefix: netip.MustParsePrefix("242.0.0.0/8")},
	{reserved: "reserved shoot service network mapping range", prefix: netip.MustParsePrefix("243.0.0.0/8")},
	{reserved: "reserved shoot pod network mapping range", prefix: netip.MustParsePrefix("244.0.0.0/8")},
}

func (n network) String() string {
	if n.reserved != "" {
		return n.reserved + " " + n.prefix.String()
	}
	s := n.kind + " network " + n.prefix.String()
	switch {
	case n.defaulted:
		s += " (seed's shoot default)"
	case n.observed:
		s += " (status.networking)"
	}
	return s
}

// parseCIDRs reads a CIDR or a comma-separated list of CIDRs (dual stack).
// An empty string gives no prefixes.
func parseCIDRs(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		p, err := netip.ParsePrefix(part)
		if err != nil {
			return nil, fmt.Errorf("%q is not a CIDR: %w", part, err)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

func appendNetworks(dst []network, kind string, cidrs string) ([]network, error) {
	prefixes, err := parseCIDRs(cidrs)
	if err != nil {
		return dst, fmt.Errorf("%s network: %w", kind, err)
	}
	for _, p := range prefixes {
		dst = append(dst, network{kind: kind, prefix: p})
	}
	return dst, nil
}

// seedNetworks parses a seed's own networks and its shoot defaults. A broken
// own network makes the seed unusable for every shoot (errMsg); a broken
// default only for shoots that need it (defErr).
func seedNetworks(seed *v1alpha1.Seed) (nets []network, defPods, defServices []netip.Prefix, errMsg string, defErr [2]string) {
	var errs []string
	var err error
	n := seed.Spec.Networks
	if n.Nodes != nil {
		if nets, err = appendNetworks(nets, "node", *n.Nodes); err != nil {
			errs = append(errs, "seed "+err.Error())
		}
	}
	if nets, err = appendNetworks(nets, "pod", n.Pods); err != nil {
		errs = append(errs, "seed "+err.Error())
	}
	if nets, err = appendNetworks(nets, "service", n.Services); err != nil {
		errs = append(errs, "seed "+err.Error())
	}
	if d := n.ShootDefaults; d != nil {
		if d.Pods != nil {
			if defPods, err = parseCIDRs(*d.Pods); err != nil {
				defErr[0] = "seed's shoot default pod network: " + err.Error()
			}
		}
		if d.Services != nil {
			if defServices, err = parseCIDRs(*d.Services); err != nil {
				defErr[1] = "seed's shoot default service network: " + err.Error()
			}
		}
	}
	return nets, defPods, defServices, strings.Join(errs, "; "), defErr
}

// shootNetworks is a shoot's networks, parsed once per decision.
type shootNetworks struct {
	// own are the networks the shoot names in its spec (nodes, and pods and
	// services when set) and those status.networking reports.
	own []network
	// needPods/needServices are set when neither the spec nor
	// status.networking gives them, so that the shoot takes the seed's shoot
	// defaults.
	needPods, needServices bool
	ipv4, ipv6             bool // the shoot's IP families (IPv4 when none are set)
	// unchecked is set for a shoot without spec.networking, whose networks
	// Gardener does not check.
	unchecked bool
}

// parseShootNetworks reads the networks the shoot's spec names and, when
// status.networking is set, those it reports: a shoot that already runs (an
// evicted one being placed again) keeps its networks on the new seed, so they
// must be disjoint from the seed's, and the new seed's shootDefaults do not
// apply to a kind of network status.networking reports.
func parseShootNetworks(shoot *v1alpha1.Shoot) (shootNetworks, error) {
	// A workerless shoot runs no pods, and takes no pod network by default.
	sn := shootNetworks{needPods: len(shoot.Spec.Provider.Workers) > 0, needServices: true}
	n := shoot.Spec.Networking
	if n == nil {
		sn.unchecked = true
		return sn, nil
	}
	families := []v1alpha1.IPFamily(nil)
	if n != nil {
		families = n.IPFamilies
	}
	if len(families) == 0 {
		sn.ipv4 = true
	}
	for _, f := range families {
		switch f {
		case v1alpha1.IPFamilyIPv4:
			sn.ipv4 = true
		case v1alpha1.IPFamilyIPv6:
			sn.ipv6 = true
		}
	}
	if err := sn.addSpec(n); err != nil {
		return sn, fmt.Errorf("shoot %s: %w", ShootKey(shoot), err)
	}
	if st := shoot.Status.Networking; st != nil {
		if err := sn.addStatus(st); err != nil {
			return sn, fmt.Errorf("shoot %s: status.networking: %w", ShootKey(shoot), err)
		}
	}
	return sn, nil
}

func (sn *shootNetworks) addSpec(n *v1alpha1.Networking) error {
	var err error
	if n.Nodes != nil {
		if sn.own, err = appendNetworks(sn.own, "node", *n.Nodes); err != nil {
			return err
		}
	}
	if n.Pods != nil && strings.TrimSpace(*n.Pods) != "" {
		sn.needPods = false
		if sn.own, err = appendNetworks(sn.own, "pod", *n.Pods); err != nil {
			return err
		}
	}
	if n.Services != nil && strings.TrimSpace(*n.Services) != "" {
		sn.needServices = false
		if sn.own, err = appendNetworks(sn.own, "service", *n.Services); err != nil {
			return err
		}
	}
	return nil
}

// addStatus adds the networks status.networking reports that the spec does
// not name already. Every family counts: these networks exist. They are
// checked besides the spec's, whose defaults still apply, as in Gardener.
func (sn *shootNetworks) addStatus(st *v1alpha1.NetworkingStatus) error {
	for _, kind := range []struct {
		name  string
		cidrs []string
	}{
		{"node", st.Nodes},
		{"pod", st.Pods},
		{"service", st.Services},
	} {
		for _, cidr := range kind.cidrs {
			prefixes, err := parseCIDRs(cidr)
			if err != nil {
				return fmt.Errorf("%s network: %w", kind.name, err)
			}
			for _, p := range prefixes {
				if !slices.ContainsFunc(sn.own, func(o network) bool { return o.kind == kind.name && o.prefix == p }) {
					sn.own = append(sn.own, network{kind: kind.name, prefix: p, observed: true})
				}
			}
		}
	}
	return nil
}

// seedError says why the seed's networks cannot be checked for this shoot: its
// own networks are broken, or a default the shoot needs is.
func (sn *shootNetworks) seedError(seed *seedInfo) string {
	if sn.unchecked {
		return ""
	}
	var errs []string
	if seed.netErr != "" {
		errs = append(errs, seed.netErr)
	}
	if sn.needPods && seed.defaultErr[0] != "" {
		errs = append(errs, seed.defaultErr[0])
	}
	if sn.needServices && seed.defaultErr[1] != "" {
		errs = append(errs, seed.defaultErr[1])
	}
	return strings.Join(errs, "; ")
}

func (sn *shootNetworks) wantsFamily(p netip.Prefix) bool {
	if p.Addr().Is4() {
		return sn.ipv4
	}
	return sn.ipv6
}

// overlaps calls fn for every pair of a shoot network (with the seed's
// defaults filled in) and a seed network or reserved range that intersect,
// and stops when fn returns false. It reports whether any pair intersected.
// As in Gardener, an IPv4 shoot network may overlap the seed's networks (the
// VPN maps them apart); an IPv6 one may not, and no shoot network may lie in
// a reserved range.
func (sn *shootNetworks) overlaps(seed *seedInfo, fn func(shootNet, seedNet network) bool) bool {
	if sn.unchecked {
		return false
	}
	found := false
	against := func(s network, nets []network) bool {
		for _, t := range nets {
			if s.prefix.Overlaps(t.prefix) {
				found = true
				if fn == nil || !fn(s, t) {
					return false
				}
			}
		}
		return true
	}
	check := func(s network) bool {
		if s.prefix.Addr().Is6() && !against(s, seed.nets) {
			return false
		}
		return against(s, reservedRanges)
	}
	for _, s := range sn.own {
		if !check(s) {
			return true
		}
	}
	if sn.needPods {
		for _, p := range seed.defaultPods {
			if sn.wantsFamily(p) && !check(network{kind: "pod", prefix: p, defaulted: true}) {
				return true
			}
		}
	}
	if sn.needServices {
		for _, p := range seed.defaultServices {
			if sn.wantsFamily(p) && !check(network{kind: "service", prefix: p, defaulted: true}) {
				return true
			}
		}
	}
	return found
}
