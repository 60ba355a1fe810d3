package coretest

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// CloudProfileName is the cloud profile MakeShoot's shoots name.
const CloudProfileName = "aws"

// SeedWrapper builds a Seed.
type SeedWrapper struct{ *v1alpha1.Seed }

// WrapSeed changes an existing seed.
func WrapSeed(s *v1alpha1.Seed) *SeedWrapper { return &SeedWrapper{s} }

// MakeSeed returns a ready, visible aws seed in eu-west-1 (zones a, b and
// c) whose networks do not overlap MakeShoot's: reconciled, with gardenlet
// and backup buckets ready, and no allocatable shoots set (no limit).
func MakeSeed(name string) *SeedWrapper {
	return &SeedWrapper{&v1alpha1.Seed{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{}},
		Spec: v1alpha1.SeedSpec{
			Provider: v1alpha1.SeedProvider{Type: "aws", Region: "eu-west-1", Zones: []string{"a", "b", "c"}},
			Networks: v1alpha1.SeedNetworks{Nodes: ptr.To("10.250.0.0/16"), Pods: "10.96.0.0/11", Services: "10.64.0.0/13"},
		},
		Status: v1alpha1.SeedStatus{
			LastOperation: &v1alpha1.LastOperation{Type: v1alpha1.LastOperationTypeReconcile, State: v1alpha1.LastOperationStateSucceeded},
			Conditions: []v1alpha1.Condition{
				{Type: v1alpha1.SeedGardenletReady, Status: v1alpha1.ConditionTrue},
				{Type: v1alpha1.SeedBackupBucketsReady, Status: v1alpha1.ConditionTrue},
			},
		},
	}}
}

// Obj returns the seed.
func (s *SeedWrapper) Obj() *v1alpha1.Seed { return s.Seed }

// With changes the seed with f, for what no other method sets.
func (s *SeedWrapper) With(f func(*v1alpha1.Seed)) *SeedWrapper { f(s.Seed); return s }

// Provider sets the provider type and region.
func (s *SeedWrapper) Provider(typ, region string) *SeedWrapper {
	s.Spec.Provider.Type, s.Spec.Provider.Region = typ, region
	return s
}

// Region sets the provider region.
func (s *SeedWrapper) Region(region string) *SeedWrapper {
	s.Spec.Provider.Region = region
	return s
}

// Zones sets the provider zones.
func (s *SeedWrapper) Zones(zones ...string) *SeedWrapper {
	s.Spec.Provider.Zones = zones
	return s
}

// Allocatable sets status.allocatable.shoots; a negative n leaves it unset.
func (s *SeedWrapper) Allocatable(n int64) *SeedWrapper {
	if n >= 0 {
		s.Status.Allocatable = corev1.ResourceList{v1alpha1.ResourceShoots: *resource.NewQuantity(n, resource.DecimalSI)}
	}
	return s
}

// Taints adds taints.
func (s *SeedWrapper) Taints(taints ...v1alpha1.SeedTaint) *SeedWrapper {
	s.Spec.Taints = append(s.Spec.Taints, taints...)
	return s
}

// Taint adds a taint; value nil for none.
func (s *SeedWrapper) Taint(key string, value *string, effect v1alpha1.TaintEffect) *SeedWrapper {
	return s.Taints(v1alpha1.SeedTaint{Key: key, Value: value, Effect: effect})
}

// Label sets a label.
func (s *SeedWrapper) Label(key, value string) *SeedWrapper {
	s.Seed.Labels[key] = value
	return s
}

// Labels sets labels.
func (s *SeedWrapper) Labels(labels map[string]string) *SeedWrapper {
	for k, v := range labels {
		s.Seed.Labels[k] = v
	}
	return s
}

// Annotations sets annotations.
func (s *SeedWrapper) Annotations(annotations map[string]string) *SeedWrapper {
	if s.Seed.Annotations == nil && len(annotations) > 0 {
		s.Seed.Annotations = map[string]string{}
	}
	for k, v := range annotations {
		s.Seed.Annotations[k] = v
	}
	return s
}

// Condition sets the status of a condition, adding it when missing.
func (s *SeedWrapper) Condition(t v1alpha1.ConditionType, status v1alpha1.ConditionStatus) *SeedWrapper {
	for i := range s.Status.Conditions {
		if s.Status.Conditions[i].Type == t {
			s.Status.Conditions[i].Status = status
			return s
		}
	}
	s.Status.Conditions = append(s.Status.Conditions, v1alpha1.Condition{Type: t, Status: status})
	return s
}

// Networks sets the seed's node (none when empty), pod and service networks.
func (s *SeedWrapper) Networks(nodes, pods, services string) *SeedWrapper {
	s.Spec.Networks.Nodes = nil
	if nodes != "" {
		s.Spec.Networks.Nodes = ptr.To(nodes)
	}
	s.Spec.Networks.Pods, s.Spec.Networks.Services = pods, services
	return s
}

// ShootDefaults sets the networks the seed gives shoots that name none;
// empty for none.
func (s *SeedWrapper) ShootDefaults(pods, services string) *SeedWrapper {
	d := &v1alpha1.ShootNetworks{}
	if pods != "" {
		d.Pods = ptr.To(pods)
	}
	if services != "" {
		d.Services = ptr.To(services)
	}
	s.Spec.Networks.ShootDefaults = d
	return s
}

// Annotation sets an annotation.
func (s *SeedWrapper) Annotation(key, value string) *SeedWrapper {
	return s.Annotations(map[string]string{key: value})
}

// ZoneSelection sets settings.zoneSelection's mode and the provider zones.
func (s *SeedWrapper) ZoneSelection(mode v1alpha1.ZoneSelectionMode, zones ...string) *SeedWrapper {
	if s.Spec.Settings == nil {
		s.Spec.Settings = &v1alpha1.SeedSettings{}
	}
	s.Spec.Settings.ZoneSelection = &v1alpha1.SeedSettingZoneSelection{Mode: mode}
	s.Spec.Provider.Zones = zones
	return s
}

// AccessRestrictions adds the access restrictions the seed offers.
func (s *SeedWrapper) AccessRestrictions(names ...string) *SeedWrapper {
	for _, n := range names {
		s.Spec.AccessRestrictions = append(s.Spec.AccessRestrictions, v1alpha1.AccessRestriction{Name: n})
	}
	return s
}

// DefaultDomains adds default DNS domains the seed offers shoots.
func (s *SeedWrapper) DefaultDomains(domains ...string) *SeedWrapper {
	for _, d := range domains {
		s.Spec.DNS.Defaults = append(s.Spec.DNS.Defaults, v1alpha1.SeedDNSDefault{Type: "local", Domain: d})
	}
	return s
}

// Backup gives the seed a backup of the provider type.
func (s *SeedWrapper) Backup(provider string) *SeedWrapper {
	s.Spec.Backup = &v1alpha1.SeedBackup{Provider: provider}
	return s
}

// InternalDomain sets the seed's internal DNS domain.
func (s *SeedWrapper) InternalDomain(domain string) *SeedWrapper {
	s.Spec.DNS.Internal = &v1alpha1.SeedDNSInternal{Domain: domain}
	return s
}

// ResourceVersion sets the resourceVersion.
func (s *SeedWrapper) ResourceVersion(rv string) *SeedWrapper {
	s.Seed.ResourceVersion = rv
	return s
}

// AgentVersion sets status.gardener.version: the version of the seed's
// gardenlet.
func (s *SeedWrapper) AgentVersion(version string) *SeedWrapper {
	s.Status.Gardener = &v1alpha1.SeedAgent{Version: version}
	return s
}

// ShootWrapper builds a Shoot.
type ShootWrapper struct{ *v1alpha1.Shoot }

// WrapShoot changes an existing shoot.
func WrapShoot(s *v1alpha1.Shoot) *ShootWrapper { return &ShootWrapper{s} }

// MakeShoot returns an aws shoot in eu-west-1 with no seed, naming the aws
// cloud profile, with networks that do not overlap MakeSeed's.
func MakeShoot(namespace, name string) *ShootWrapper {
	return &ShootWrapper{&v1alpha1.Shoot{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: v1alpha1.ShootSpec{
			CloudProfile: &v1alpha1.CloudProfileReference{Kind: "CloudProfile", Name: CloudProfileName},
			Provider:     v1alpha1.Provider{Type: "aws"},
			Region:       "eu-west-1",
			Networking:   &v1alpha1.Networking{Nodes: ptr.To("10.180.0.0/16"), Pods: ptr.To("100.96.0.0/11"), Services: ptr.To("100.64.0.0/13")},
		},
	}}
}

// Obj returns the shoot.
func (s *ShootWrapper) Obj() *v1alpha1.Shoot { return s.Shoot }

// With changes the shoot with f, for what no other method sets.
func (s *ShootWrapper) With(f func(*v1alpha1.Shoot)) *ShootWrapper { f(s.Shoot); return s }

// Seed sets spec.seedName; empty for none.
func (s *ShootWrapper) Seed(seed string) *ShootWrapper {
	s.Spec.SeedName = nil
	if seed != "" {
		s.Spec.SeedName = ptr.To(seed)
	}
	return s
}

// StatusSeed sets status.seedName; empty for none.
func (s *ShootWrapper) StatusSeed(seed string) *ShootWrapper {
	s.Status.SeedName = nil
	if seed != "" {
		s.Status.SeedName = ptr.To(seed)
	}
	return s
}

// Provider sets the provider type and the region.
func (s *ShootWrapper) Provider(typ, region string) *ShootWrapper {
	s.Spec.Provider.Type, s.Spec.Region = typ, region
	return s
}

// Region sets the region.
func (s *ShootWrapper) Region(region string) *ShootWrapper {
	s.Spec.Region = region
	return s
}

// CloudProfileName names the cloud profile by the older spec.cloudProfileName
// field instead of spec.cloudProfile.
func (s *ShootWrapper) CloudProfileName(name string) *ShootWrapper {
	s.Spec.CloudProfile, s.Spec.CloudProfileName = nil, ptr.To(name)
	return s
}

// CloudProfileRef names the cloud profile by spec.cloudProfile, of the kind
// CloudProfile or NamespacedCloudProfile.
func (s *ShootWrapper) CloudProfileRef(kind, name string) *ShootWrapper {
	s.Spec.CloudProfileName, s.Spec.CloudProfile = nil, &v1alpha1.CloudProfileReference{Kind: kind, Name: name}
	return s
}

// Tolerations adds tolerations.
func (s *ShootWrapper) Tolerations(tolerations ...v1alpha1.Toleration) *ShootWrapper {
	s.Spec.Tolerations = append(s.Spec.Tolerations, tolerations...)
	return s
}

// Tolerate adds a toleration; value and seconds nil for none.
func (s *ShootWrapper) Tolerate(key string, value *string, effect v1alpha1.TaintEffect, seconds *int64) *ShootWrapper {
	return s.Tolerations(v1alpha1.Toleration{Key: key, Value: value, Effect: effect, TolerationSeconds: seconds})
}

// Purpose sets the purpose; empty for none.
func (s *ShootWrapper) Purpose(p v1alpha1.ShootPurpose) *ShootWrapper {
	s.Spec.Purpose = nil
	if p != "" {
		s.Spec.Purpose = &p
	}
	return s
}

// Networks sets the shoot's networks (each empty for none) and IP families.
func (s *ShootWrapper) Networks(nodes, pods, services string, families ...v1alpha1.IPFamily) *ShootWrapper {
	n := &v1alpha1.Networking{IPFamilies: families}
	for p, v := range map[**string]string{&n.Nodes: nodes, &n.Pods: pods, &n.Services: services} {
		if v != "" {
			*p = ptr.To(v)
		}
	}
	s.Spec.Networking = n
	return s
}

// Created sets the creation time.
func (s *ShootWrapper) Created(t time.Time) *ShootWrapper {
	s.CreationTimestamp = metav1.NewTime(t)
	return s
}

// ResourceVersion sets the resourceVersion.
func (s *ShootWrapper) ResourceVersion(rv string) *ShootWrapper {
	s.Shoot.ResourceVersion = rv
	return s
}

// SeedSelector sets spec.seedSelector.
func (s *ShootWrapper) SeedSelector(sel *v1alpha1.SeedSelector) *ShootWrapper {
	s.Spec.SeedSelector = sel
	return s
}

// SchedulerName sets spec.schedulerName.
func (s *ShootWrapper) SchedulerName(name string) *ShootWrapper {
	s.Spec.SchedulerName = ptr.To(name)
	return s
}

// SelectSeeds sets spec.seedSelector to the seeds with the labels.
func (s *ShootWrapper) SelectSeeds(labels map[string]string) *ShootWrapper {
	return s.SeedSelector(&v1alpha1.SeedSelector{LabelSelector: metav1.LabelSelector{MatchLabels: labels}})
}

// Namespace sets the namespace.
func (s *ShootWrapper) Namespace(namespace string) *ShootWrapper {
	s.Shoot.Namespace = namespace
	return s
}

// Annotation sets an annotation.
func (s *ShootWrapper) Annotation(key, value string) *ShootWrapper {
	if s.Shoot.Annotations == nil {
		s.Shoot.Annotations = map[string]string{}
	}
	s.Shoot.Annotations[key] = value
	return s
}

// Label sets a label.
func (s *ShootWrapper) Label(key, value string) *ShootWrapper {
	if s.Shoot.Labels == nil {
		s.Shoot.Labels = map[string]string{}
	}
	s.Shoot.Labels[key] = value
	return s
}

// Workers adds one worker pool per zone list, named pool-a, pool-b, ...
func (s *ShootWrapper) Workers(zones ...[]string) *ShootWrapper {
	for _, z := range zones {
		name := "pool-" + string(rune('a'+len(s.Spec.Provider.Workers)))
		s.Spec.Provider.Workers = append(s.Spec.Provider.Workers, v1alpha1.Worker{Name: name, Zones: z})
	}
	return s
}

// AccessRestrictions adds the access restrictions the shoot needs.
func (s *ShootWrapper) AccessRestrictions(names ...string) *ShootWrapper {
	for _, n := range names {
		s.Spec.AccessRestrictions = append(s.Spec.AccessRestrictions,
			v1alpha1.AccessRestrictionWithOptions{AccessRestriction: v1alpha1.AccessRestriction{Name: n}})
	}
	return s
}

// Domain sets the shoot's DNS domain.
func (s *ShootWrapper) Domain(domain string) *ShootWrapper {
	s.Spec.DNS = &v1alpha1.DNS{Domain: ptr.To(domain)}
	return s
}

// FailureTolerance asks for a highly available control plane of the type.
func (s *ShootWrapper) FailureTolerance(t v1alpha1.FailureToleranceType) *ShootWrapper {
	if s.Spec.ControlPlane == nil {
		s.Spec.ControlPlane = &v1alpha1.ControlPlane{}
	}
	s.Spec.ControlPlane.HighAvailability = &v1alpha1.HighAvailability{FailureTolerance: v1alpha1.FailureTolerance{Type: t}}
	return s
}

// PinZones pins the control plane to the zones (spec.controlPlane.zones).
func (s *ShootWrapper) PinZones(zones ...string) *ShootWrapper {
	if s.Spec.ControlPlane == nil {
		s.Spec.ControlPlane = &v1alpha1.ControlPlane{}
	}
	s.Spec.ControlPlane.Zones = zones
	return s
}

// MaintenanceWindow sets spec.maintenance.timeWindow (HHMMSS+ZZZZ each).
func (s *ShootWrapper) MaintenanceWindow(begin, end string) *ShootWrapper {
	s.Spec.Maintenance = &v1alpha1.Maintenance{TimeWindow: &v1alpha1.MaintenanceTimeWindow{Begin: begin, End: end}}
	return s
}

// Hibernated sets spec.hibernation.enabled and status.isHibernated: a
// sleeping shoot.
func (s *ShootWrapper) Hibernated() *ShootWrapper {
	s.Spec.Hibernation = &v1alpha1.Hibernation{Enabled: ptr.To(true)}
	s.Status.IsHibernated = true
	return s
}

// LastOperation sets status.lastOperation.
func (s *ShootWrapper) LastOperation(typ v1alpha1.LastOperationType, state v1alpha1.LastOperationState, description string) *ShootWrapper {
	s.Status.LastOperation = &v1alpha1.LastOperation{Type: typ, State: state, Description: description}
	return s
}

// StatusNetworks sets status.networking: the networks the shoot runs with.
func (s *ShootWrapper) StatusNetworks(nodes, pods, services []string) *ShootWrapper {
	s.Status.Networking = &v1alpha1.NetworkingStatus{Nodes: nodes, Pods: pods, Services: services}
	return s
}

// CloudProfileWrapper builds a CloudProfile.
type CloudProfileWrapper struct{ *v1alpha1.CloudProfile }

// MakeCloudProfile returns an aws cloud profile.
func MakeCloudProfile(name string) *CloudProfileWrapper {
	return &CloudProfileWrapper{&v1alpha1.CloudProfile{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       v1alpha1.CloudProfileSpec{Type: "aws"},
	}}
}

// Obj returns the cloud profile.
func (c *CloudProfileWrapper) Obj() *v1alpha1.CloudProfile { return c.CloudProfile }

// Regions sets the regions offered.
func (c *CloudProfileWrapper) Regions(names ...string) *CloudProfileWrapper {
	c.Spec.Regions = nil
	for _, n := range names {
		c.Spec.Regions = append(c.Spec.Regions, v1alpha1.Region{Name: n})
	}
	return c
}

// AllowZonePinning lets the profile's shoots pin their control plane to zones.
func (c *CloudProfileWrapper) AllowZonePinning() *CloudProfileWrapper {
	c.Spec.ControlPlane = &v1alpha1.CloudProfileControlPlane{AllowZonePinning: true}
	return c
}

// RegionConfigMap returns a region ConfigMap for the comma-separated cloud
// profiles with data, region to "other-region: distance" lines.
func RegionConfigMap(namespace, name, profiles string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: namespace, Name: name,
			Labels:      map[string]string{v1alpha1.LabelSchedulingPurpose: v1alpha1.LabelSchedulingPurposeRegionConfig},
			Annotations: map[string]string{v1alpha1.AnnotationSchedulingCloudProfiles: profiles},
		},
		Data: data,
	}
}
