// Package livelandscape owns graftctl's one-off view of the live garden for the
// shared scheduling algorithm: it reads seeds, shoots, cloud profiles (through
// graft's API or Gardener's, as garden.Client gives them) and region
// ConfigMaps (of --region-config-namespace only, as the scheduler reads those
// of its regionConfigNamespace) once, fills an algorithm.Snapshot, and hands
// out the algorithm.Inputs for a shoot, so that `drain --dry-run`, `drain`'s
// leftover reasons, `describe shoot` and `simulate --from-cluster` ask exactly
// the scheduler's question, and `describe seed` and `get seeds -o wide` make
// graft-capacity-annotator's forecast (ForecastFlags, Forecast).
package livelandscape
