package algorithm

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/coretest"
)

// The builder parses a region ConfigMap once and again only when it changed
// (the informer then holds another object), and forgets a deleted one.
func TestInputsBuilderKeepsParsedRegionConfigsUntilTheConfigMapChanges(t *testing.T) {
	var cms []*corev1.ConfigMap
	profile := coretest.MakeCloudProfile("aws").Obj()
	b := &InputsBuilder{Landscape: &funcLandscape{
		profile:    func(string) (*v1alpha1.CloudProfile, error) { return profile, nil },
		configMaps: func() []*corev1.ConfigMap { return cms },
	}}
	shoot := &v1alpha1.Shoot{Spec: v1alpha1.ShootSpec{Region: "eu-west-1", CloudProfileName: ptr.To("aws")}}
	distance := func() map[string]int {
		t.Helper()
		in, err := b.Inputs(shoot)
		if err != nil {
			t.Fatal(err)
		}
		d, err := in.RegionConfig.Distances("eu-west-1")
		if err != nil {
			t.Fatal(err)
		}
		return d
	}

	if d := distance(); d != nil {
		t.Errorf("distances %v without a region ConfigMap, want none", d)
	}
	cms = []*corev1.ConfigMap{coretest.RegionConfigMap("garden", "regions", "aws", map[string]string{"eu-west-1": "eu-west-2: 1\n"})}
	first, _ := b.Inputs(shoot)
	again, _ := b.Inputs(shoot)
	if first.RegionConfig == nil || first.RegionConfig != again.RegionConfig {
		t.Error("an unchanged region ConfigMap was parsed again")
	}
	cms = []*corev1.ConfigMap{coretest.RegionConfigMap("garden", "regions", "aws", map[string]string{"eu-west-1": "eu-west-2: 7\n"})}
	if d := distance(); d["eu-west-2"] != 7 {
		t.Errorf("distances %v after the ConfigMap changed, want eu-west-2 at 7", d)
	}
	cms = nil
	if d := distance(); d != nil {
		t.Errorf("distances %v after the ConfigMap was deleted, want none", d)
	}
}

// Every caller resolves a shoot's cloud profile through CloudProfileOf: a
// NamespacedCloudProfile of the shoot's namespace by its merged spec, never a
// cluster-wide profile of the same name; a missing one, or one that cannot be
// read, with the reason.
func TestProfileLookup(t *testing.T) {
	readErr := errors.New("connection refused")
	aws := coretest.MakeCloudProfile("aws").Obj()
	ncp := &v1alpha1.NamespacedCloudProfile{ObjectMeta: metav1.ObjectMeta{Namespace: "garden-dev", Name: "aws"}}
	ncp.Status.CloudProfileSpec = aws.Spec
	ncp.Status.CloudProfileSpec.Type = "aws"
	unmerged := &v1alpha1.NamespacedCloudProfile{ObjectMeta: metav1.ObjectMeta{Namespace: "garden-dev", Name: "fresh"}}
	full := &funcLandscape{
		profile: func(name string) (*v1alpha1.CloudProfile, error) {
			switch name {
			case "aws":
				return aws, nil
			case "broken":
				return nil, readErr
			case "gone":
				return nil, apierrors.NewNotFound(v1alpha1.Resource("cloudprofiles"), name)
			}
			return nil, nil
		},
		namespaced: func(namespace, name string) (*v1alpha1.NamespacedCloudProfile, error) {
			switch namespace + "/" + name {
			case "garden-dev/aws":
				return ncp, nil
			case "garden-dev/fresh":
				return unmerged, nil
			}
			return nil, nil
		},
	}
	shoot := func(kind, name string) *v1alpha1.Shoot {
		s := &v1alpha1.Shoot{ObjectMeta: metav1.ObjectMeta{Namespace: "garden-dev", Name: "s"}}
		if name != "" {
			s.Spec.CloudProfile = &v1alpha1.CloudProfileReference{Kind: kind, Name: name}
		}
		return s
	}
	for _, tc := range []struct {
		name          string
		lookup        Landscape
		shoot         *v1alpha1.Shoot
		wantNamespace string
		wantErr       string
		wantIs        error
	}{
		{name: "cluster-wide", lookup: full, shoot: shoot("CloudProfile", "aws")},
		{name: "cluster-wide without a kind", lookup: full, shoot: shoot("", "aws")},
		{name: "namespaced", lookup: full, shoot: shoot(KindNamespacedCloudProfile, "aws"), wantNamespace: "garden-dev"},
		{name: "no name", lookup: full, shoot: shoot("", ""), wantErr: "shoot garden-dev/s names no cloud profile"},
		{name: "missing", lookup: full, shoot: shoot("CloudProfile", "azure"), wantErr: `cloud profile "azure" of shoot garden-dev/s not found`},
		{name: "NotFound", lookup: full, shoot: shoot("CloudProfile", "gone"), wantErr: `cloud profile "gone" of shoot garden-dev/s not found`},
		{name: "unreadable", lookup: full, shoot: shoot("CloudProfile", "broken"), wantErr: `reading cloud profile "broken": connection refused`, wantIs: readErr},
		{name: "namespaced missing", lookup: full, shoot: shoot(KindNamespacedCloudProfile, "azure"),
			wantErr: "NamespacedCloudProfile garden-dev/azure of shoot garden-dev/s not found"},
		{name: "namespaced not merged yet", lookup: full, shoot: shoot(KindNamespacedCloudProfile, "fresh"),
			wantErr: "NamespacedCloudProfile garden-dev/fresh has no merged status.cloudProfileSpec yet"},
		{name: "namespaced not held", lookup: &funcLandscape{profile: full.profile}, shoot: shoot(KindNamespacedCloudProfile, "aws"),
			wantErr: "NamespacedCloudProfile garden-dev/aws of shoot garden-dev/s not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CloudProfileOf(tc.lookup, tc.shoot)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("CloudProfileOf = %v, %v; want error %q", got, err, tc.wantErr)
				}
				if tc.wantIs != nil && !errors.Is(err, tc.wantIs) {
					t.Errorf("error %v does not wrap %v", err, tc.wantIs)
				}
				return
			}
			if err != nil || got == nil || got.Name != "aws" || got.Namespace != tc.wantNamespace {
				t.Fatalf("CloudProfileOf = %v, %v; want profile aws in namespace %q", got, err, tc.wantNamespace)
			}
		})
	}
	// Inputs fails the same way and still carries the configuration.
	b := &InputsBuilder{Landscape: full, Config: Config{Strategy: StrategyMinimalDistance}}
	in, err := b.Inputs(shoot("CloudProfile", "broken"))
	if !errors.Is(err, readErr) || in.CloudProfile != nil || in.Config.Strategy != StrategyMinimalDistance {
		t.Errorf("Inputs = %+v, %v; want no profile, the configuration and the read error", in, err)
	}
}

// funcLandscape is a Landscape of functions; an unset one holds nothing.
type funcLandscape struct {
	profile    func(name string) (*v1alpha1.CloudProfile, error)
	namespaced func(namespace, name string) (*v1alpha1.NamespacedCloudProfile, error)
	configMaps func() []*corev1.ConfigMap
	project    func(namespace string) string
	migration  bool
}

func (l *funcLandscape) CloudProfile(name string) (*v1alpha1.CloudProfile, error) {
	if l.profile == nil {
		return nil, nil
	}
	return l.profile(name)
}

func (l *funcLandscape) NamespacedCloudProfile(namespace, name string) (*v1alpha1.NamespacedCloudProfile, error) {
	if l.namespaced == nil {
		return nil, nil
	}
	return l.namespaced(namespace, name)
}

func (l *funcLandscape) RegionConfigMaps() []*corev1.ConfigMap {
	if l.configMaps == nil {
		return nil
	}
	return l.configMaps()
}

func (l *funcLandscape) Project(namespace string) string {
	if l.project == nil {
		return ""
	}
	return l.project(namespace)
}

func (l *funcLandscape) Migration() bool { return l.migration }

// The project and the migration rules come from the landscape, whoever
// builds the inputs.
func TestInputsTakeProjectAndMigrationFromTheLandscape(t *testing.T) {
	l := &funcLandscape{
		profile:   func(string) (*v1alpha1.CloudProfile, error) { return coretest.MakeCloudProfile("aws").Obj(), nil },
		project:   func(namespace string) string { return "p-" + namespace },
		migration: true,
	}
	in, err := (&InputsBuilder{Landscape: l}).Inputs(coretest.MakeShoot("garden-dev", "s").Obj())
	if err != nil || in.Project != "p-garden-dev" || !in.Migration {
		t.Fatalf("Inputs = project %q, migration %v, %v; want p-garden-dev, true", in.Project, in.Migration, err)
	}
	l.migration, l.project = false, nil
	if in, _ := (&InputsBuilder{Landscape: l}).Inputs(coretest.MakeShoot("garden-dev", "s").Obj()); in.Project != "" || in.Migration {
		t.Fatalf("Inputs = project %q, migration %v; want none", in.Project, in.Migration)
	}
}
