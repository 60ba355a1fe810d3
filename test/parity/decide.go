package parity

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"

	"github.com/graft-dev/graft/apis/core/v1alpha1"
	"github.com/graft-dev/graft/pkg/algorithm"
	"github.com/graft-dev/graft/pkg/landscapefile"
)

// Decision is where a shoot goes, or why it goes nowhere.
type Decision struct {
	Shoot string `json:"shoot"`
	Seed  string `json:"seed,omitempty"`
	Error string `json:"error,omitempty"`
}

// Graft decides the landscape's pending shoots with graft's algorithm,
// reading the Gardener objects as graft does (landscapefile, then the one
// inputs builder) and deciding each shoot on its own, as Gardener does.
func Graft(l *Landscape) ([]Decision, error) {
	var docs bytes.Buffer
	for _, obj := range l.Objects {
		data, err := json.Marshal(obj.Object)
		if err != nil {
			return nil, err
		}
		docs.WriteString("---\n")
		docs.Write(data)
		docs.WriteString("\n")
	}
	land, err := landscapefile.Read(&docs, "generated")
	if err != nil {
		return nil, err
	}
	land.RegionConfigNamespace = GardenNamespace
	snap := algorithm.NewSnapshot()
	for _, s := range land.Seeds {
		snap.AddSeed(s)
	}
	for _, s := range land.Shoots {
		snap.AddShoot(s)
	}
	inputs := &algorithm.InputsBuilder{Landscape: land, Config: algorithm.Config{Strategy: algorithm.Strategy(l.Strategy)}}
	out := make([]Decision, 0, len(l.Pending))
	for _, key := range l.Pending {
		shoot := findShoot(land, key)
		if shoot == nil {
			return nil, fmt.Errorf("shoot %s is not in the landscape as graft reads it", key)
		}
		d := Decision{Shoot: key}
		in, err := inputs.Inputs(shoot)
		if err == nil {
			d.Seed, err = algorithm.Schedule(shoot, snap, in)
		}
		if err != nil {
			d.Error = err.Error()
		}
		out = append(out, d)
	}
	return out, nil
}

func findShoot(l *landscapefile.Landscape, key string) *v1alpha1.Shoot {
	for _, s := range l.Shoots {
		if algorithm.ShootKey(s) == key {
			return s
		}
	}
	return nil
}

// Oracle decides the landscape's pending shoots with Gardener's scheduler
// code: the oracle binary at path.
func Oracle(path string, l *Landscape) ([]Decision, error) {
	objects := make([]json.RawMessage, 0, len(l.Objects))
	for _, obj := range l.Objects {
		data, err := json.Marshal(obj.Object)
		if err != nil {
			return nil, err
		}
		objects = append(objects, data)
	}
	input, err := json.Marshal(map[string]any{
		"strategy": l.Strategy, "gardenNamespace": GardenNamespace, "objects": objects, "shoots": l.Pending,
	})
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path)
	cmd.Stdin = bytes.NewReader(input)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %w: %s", path, err, stderr.String())
	}
	var out []Decision
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		return nil, fmt.Errorf("reading the oracle's answer: %w", err)
	}
	return out, nil
}
