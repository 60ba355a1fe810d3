package cachetrim

import (
	"unique"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// internShoot makes the strings of a Shoot that many shoots share point to
// one canonical copy each (the unique package); strings of the shoot's own
// (name, uid, resourceVersion, descriptions) are left alone.
func internShoot(s *v1alpha1.Shoot) {
	s.Namespace = intern(s.Namespace)
	s.Labels = internMap(s.Labels)
	s.Annotations = internMap(s.Annotations)
	for i := range s.Finalizers {
		s.Finalizers[i] = intern(s.Finalizers[i])
	}

	spec := &s.Spec
	internPtr(spec.CloudProfileName)
	if ref := spec.CloudProfile; ref != nil {
		ref.Kind, ref.Name = intern(ref.Kind), intern(ref.Name)
	}
	if n := spec.Networking; n != nil {
		internPtr(n.Type)
		internPtr(n.Pods)
		internPtr(n.Nodes)
		internPtr(n.Services)
		for i := range n.IPFamilies {
			n.IPFamilies[i] = v1alpha1.IPFamily(intern(string(n.IPFamilies[i])))
		}
	}
	spec.Provider.Type = intern(spec.Provider.Type)
	for i := range spec.Provider.Workers {
		w := &spec.Provider.Workers[i]
		w.Name = intern(w.Name)
		internAll(w.Zones)
	}
	if spec.Purpose != nil {
		*spec.Purpose = v1alpha1.ShootPurpose(intern(string(*spec.Purpose)))
	}
	spec.Region = intern(spec.Region)
	internPtr(spec.SchedulerName)
	internPtr(spec.SeedName)
	if sel := spec.SeedSelector; sel != nil {
		sel.MatchLabels = internMap(sel.MatchLabels)
		for i := range sel.MatchExpressions {
			e := &sel.MatchExpressions[i]
			e.Key = intern(e.Key)
			internAll(e.Values)
		}
		internAll(sel.ProviderTypes)
	}
	for i := range spec.Tolerations {
		t := &spec.Tolerations[i]
		t.Key = intern(t.Key)
		internPtr(t.Value)
		t.Effect = v1alpha1.TaintEffect(intern(string(t.Effect)))
	}

	status := &s.Status
	internPtr(status.SeedName)
	if op := status.LastOperation; op != nil {
		op.Type = v1alpha1.LastOperationType(intern(string(op.Type)))
		op.State = v1alpha1.LastOperationState(intern(string(op.State)))
	}
	if n := status.Networking; n != nil {
		internAll(n.Pods)
		internAll(n.Nodes)
		internAll(n.Services)
		internAll(n.EgressCIDRs)
	}
}

func intern(s string) string {
	if s == "" {
		return s
	}
	return unique.Make(s).Value()
}

func internPtr(p *string) {
	if p != nil {
		*p = intern(*p)
	}
}

func internAll(values []string) {
	for i := range values {
		values[i] = intern(values[i])
	}
}

// internMap returns m with interned keys and values; m is rebuilt, since a
// map's keys cannot be replaced in place.
func internMap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return m
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[intern(k)] = intern(v)
	}
	return out
}
