// Package cordon owns `graftctl cordon` and `graftctl uncordon`: marking seeds
// unschedulable with the seed.gardener.cloud/unschedulable:NoSchedule taint,
// and lifting that mark together with a drain's NoExecute variant.
package cordon
