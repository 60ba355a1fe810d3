// Command oracle decides shoots with Gardener's own scheduler code: it calls
// DetermineSeed of github.com/gardener/gardener/pkg/scheduler/controller/shoot
// unchanged, over a controller-runtime client that serves the landscape it
// reads. test/parity compares its answers with graft's.
//
// Input (stdin, JSON): {"strategy": "SameRegion"|"MinimalDistance",
// "gardenNamespace": "garden", "objects": [Gardener and core/v1 objects],
// "shoots": ["namespace/name", ...]}. Output (stdout, JSON): one
// {"shoot", "seed", "error"} per shoot, in the order asked.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakeclient "sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/gardener/gardener/pkg/api/indexer"
	schedulerconfigv1alpha1 "github.com/gardener/gardener/pkg/apis/config/scheduler/v1alpha1"
	gardencore "github.com/gardener/gardener/pkg/apis/core"
	gardencorev1beta1 "github.com/gardener/gardener/pkg/apis/core/v1beta1"
	"github.com/gardener/gardener/pkg/client/kubernetes"
	"github.com/gardener/gardener/pkg/scheduler/controller/shoot"
)

type input struct {
	Strategy        string            `json:"strategy"`
	GardenNamespace string            `json:"gardenNamespace"`
	Objects         []json.RawMessage `json:"objects"`
	Shoots          []string          `json:"shoots"`
}

type decision struct {
	Shoot string `json:"shoot"`
	Seed  string `json:"seed,omitempty"`
	Error string `json:"error,omitempty"`
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "oracle:", err)
		os.Exit(1)
	}
}

func run() error {
	var in input
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		return fmt.Errorf("reading the input: %w", err)
	}
	decoder := kubernetes.GardenCodec.UniversalDeserializer()
	objs := make([]client.Object, 0, len(in.Objects))
	for i, raw := range in.Objects {
		obj, _, err := decoder.Decode(raw, nil, nil)
		if err != nil {
			return fmt.Errorf("object %d: %w", i, err)
		}
		o, ok := obj.(client.Object)
		if !ok {
			return fmt.Errorf("object %d: %T is no API object", i, obj)
		}
		objs = append(objs, o)
	}
	c := fakeclient.NewClientBuilder().
		WithScheme(kubernetes.GardenScheme).
		WithObjects(objs...).
		WithIndex(&gardencorev1beta1.Project{}, gardencore.ProjectNamespace, indexer.ProjectNamespaceIndexerFunc).
		Build()
	r := &shoot.Reconciler{
		Client:          c,
		Config:          &schedulerconfigv1alpha1.ShootSchedulerConfiguration{Strategy: schedulerconfigv1alpha1.CandidateDeterminationStrategy(in.Strategy)},
		GardenNamespace: in.GardenNamespace,
	}
	ctx := context.Background()
	out := make([]decision, 0, len(in.Shoots))
	for _, key := range in.Shoots {
		namespace, name, ok := strings.Cut(key, "/")
		if !ok {
			return fmt.Errorf("shoot %q is not namespace/name", key)
		}
		s := &gardencorev1beta1.Shoot{}
		if err := c.Get(ctx, types.NamespacedName{Namespace: namespace, Name: name}, s); err != nil {
			return fmt.Errorf("shoot %s: %w", key, err)
		}
		d := decision{Shoot: key}
		seed, err := r.DetermineSeed(ctx, logr.Discard(), s)
		if err != nil {
			d.Error = err.Error()
		} else {
			d.Seed = seed.Name
		}
		out = append(out, d)
	}
	return json.NewEncoder(os.Stdout).Encode(out)
}
