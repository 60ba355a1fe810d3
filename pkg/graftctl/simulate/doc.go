// Package simulate owns `graftctl simulate`: it reads a landscape from YAML
// files (graft's or Gardener's apiVersion, see pkg/landscapefile) and schedules
// every shoot without spec.seedName with the shared algorithm, one after
// another in document order, each decision counting in the usage of the next.
// It talks to no cluster.
package simulate
