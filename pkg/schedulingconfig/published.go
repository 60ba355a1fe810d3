package schedulingconfig

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/graft-dev/graft/pkg/algorithm"
)

// Annotation is the key of the annotation on graft-scheduler's leader
// election Lease that holds the scheduling configuration its leader applies.
const Annotation = "scheduler.graft.dev/scheduling-configuration"

// Version is the version of the published form this build writes and reads.
// Fields may be added within a version (readers ignore what they do not
// know); a change that older readers would misread needs a new version.
const Version = "v1"

// Published is the annotation's value, as JSON.
type Published struct {
	// Version is Version.
	Version string `json:"version"`
	// SchedulerName is the spec.schedulerName the scheduler answers to.
	SchedulerName string `json:"schedulerName,omitempty"`
	// Strategy is the strategy as applied: SameRegion when none was configured.
	Strategy algorithm.Strategy `json:"strategy"`
	// ScoreWeights are the configured score weights by plugin name; empty
	// means the reference order (strategy, least utilised, name).
	ScoreWeights map[algorithm.ScorePlugin]int32 `json:"scoreWeights,omitempty"`
	// RegionConfigNamespace is the one namespace region ConfigMaps are read
	// from; empty from schedulers that did not publish it.
	RegionConfigNamespace string `json:"regionConfigNamespace,omitempty"`
}

// Encode returns the annotation value for a configuration as applied by the
// scheduler named schedulerName, which reads region ConfigMaps from
// regionConfigNamespace.
func Encode(schedulerName, regionConfigNamespace string, c algorithm.Config) (string, error) {
	p := Published{Version: Version, SchedulerName: schedulerName, Strategy: applied(c).Strategy, ScoreWeights: c.ScoreWeights,
		RegionConfigNamespace: regionConfigNamespace}
	b, err := json.Marshal(p)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// Decode reads an annotation value. It refuses another version, an
// unparsable value and a configuration the algorithm would refuse, saying why.
func Decode(value string) (Published, error) {
	var p Published
	if err := json.Unmarshal([]byte(value), &p); err != nil {
		return Published{}, fmt.Errorf("not the JSON of a scheduling configuration: %w", err)
	}
	if p.Version != Version {
		return Published{}, fmt.Errorf("version %q, this build reads %q", p.Version, Version)
	}
	if err := p.Config().Validate(); err != nil {
		return Published{}, err
	}
	return p, nil
}

// Config is the published configuration in the algorithm's terms.
func (p Published) Config() algorithm.Config {
	return algorithm.Config{Strategy: p.Strategy, ScoreWeights: p.ScoreWeights}
}

// applied returns c with the strategy the algorithm uses when none is set.
func applied(c algorithm.Config) algorithm.Config {
	if c.Strategy == "" {
		c.Strategy = algorithm.StrategySameRegion
	}
	return c
}

// Describe says in one phrase how decisions are made with c, for example
// "MinimalDistance, score weights LeastAllocated=3,MinimalDistance=1"; the
// weights are written as graftctl's --score-weight takes them.
func Describe(c algorithm.Config) string {
	c = applied(c)
	if len(c.ScoreWeights) == 0 {
		return string(c.Strategy) + ", no score weights"
	}
	parts := make([]string, 0, len(c.ScoreWeights))
	for _, p := range slices.Sorted(maps.Keys(c.ScoreWeights)) {
		parts = append(parts, fmt.Sprintf("%s=%d", p, c.ScoreWeights[p]))
	}
	return string(c.Strategy) + ", score weights " + strings.Join(parts, ",")
}
