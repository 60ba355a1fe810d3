package algorithm

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
)

// The builder parses a region ConfigMap once and again only when it changed
// (the informer then holds another object), and forgets a deleted one.
func TestInputsBuilderKeepsParsedRegionConfigsUntilTheConfigMapChanges(t *testing.T) {
	var cms []*corev1.ConfigMap
	profile := cloudProfile("aws")
	b := &InputsBuilder{
		CloudProfile:     func(*v1alpha1.Shoot) (*v1alpha1.CloudProfile, error) { return profile, nil },
		RegionConfigMaps: func() []*corev1.ConfigMap { return cms },
	}
	shoot := &v1alpha1.Shoot{Spec: v1alpha1.ShootSpec{Region: "eu-west-1"}}
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
	cms = []*corev1.ConfigMap{regionConfigMap("regions", "aws", map[string]string{"eu-west-1": "eu-west-2: 1\n"})}
	first, _ := b.Inputs(shoot)
	again, _ := b.Inputs(shoot)
	if first.RegionConfig == nil || first.RegionConfig != again.RegionConfig {
		t.Error("an unchanged region ConfigMap was parsed again")
	}
	cms = []*corev1.ConfigMap{regionConfigMap("regions", "aws", map[string]string{"eu-west-1": "eu-west-2: 7\n"})}
	if d := distance(); d["eu-west-2"] != 7 {
		t.Errorf("distances %v after the ConfigMap changed, want eu-west-2 at 7", d)
	}
	cms = nil
	if d := distance(); d != nil {
		t.Errorf("distances %v after the ConfigMap was deleted, want none", d)
	}
}

func TestInputsBuilderSaysWhyThereIsNoCloudProfile(t *testing.T) {
	missing := errors.New("cloud profile \"aws\" not found")
	b := &InputsBuilder{CloudProfile: func(*v1alpha1.Shoot) (*v1alpha1.CloudProfile, error) { return nil, missing }}
	if _, err := b.Inputs(&v1alpha1.Shoot{}); !errors.Is(err, missing) {
		t.Errorf("Inputs = %v, want the cloud profile's error", err)
	}
}
