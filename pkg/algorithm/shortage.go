package algorithm

import "github.com/graft-dev/graft/apis/core/v1alpha1"

// WithRoomOnly answers, for a shoot no seed takes now, whether capacity
// alone keeps it out (IsNoCapacity of Schedule's error), and names the seeds
// that would take it if they had room: those rejected for capacity that the
// decision without the capacity check keeps as candidates. It returns nil
// when the shoot would be placed now or another filter keeps it from every
// seed. It makes the same decisions as Schedule but formats no message, for
// callers that ask it of every waiting shoot (the capacity forecast).
func WithRoomOnly(shoot *v1alpha1.Shoot, snapshot *Snapshot, in Inputs) ([]string, error) {
	r, err := decide(shoot, snapshot, &in, "", false)
	if err != nil {
		return nil, err
	}
	defer r.release()
	if r.chosen >= 0 {
		return nil, nil
	}
	short := false
	for i := range r.verdicts {
		short = short || r.verdicts[i].filter == FilterCapacity
	}
	if !short {
		return nil, nil
	}
	again, err := decide(shoot, snapshot, &in, "", true)
	if err != nil {
		return nil, nil
	}
	defer again.release()
	if again.chosen < 0 {
		return nil, nil
	}
	var seeds []string
	for i := range r.verdicts {
		if r.verdicts[i].filter != FilterCapacity {
			continue
		}
		// Set aside by the strategy or a limited toleration with room: the
		// shoot would not go there (as scheduleError's WithRoom).
		if f := again.verdicts[i].filter; f == FilterStrategy || f == FilterLimitedToleration {
			continue
		}
		seeds = append(seeds, r.verdicts[i].info.name)
	}
	return seeds, nil
}
