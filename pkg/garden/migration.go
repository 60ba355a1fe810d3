package garden

import (
	"regexp"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/graft-dev/graft/pkg/algorithm"
)

// A control-plane migration through shoots/binding, and Gardener's refusal of
// one read from the API server's answer; algorithm.CheckMigration predicts
// it (docs/daemons.md, "Gardener's migration rules").

// Gardener's refusals of a seed change, as its ShootValidator words them.
var (
	sourceBackupRefusal = regexp.MustCompile(`cannot change seed name because backup is not configured for old seed "([^"]*)"`)
	destBackupRefusal   = regexp.MustCompile(`cannot change seed name because backup is not configured for seed "([^"]*)"`)
	domainRefusal       = regexp.MustCompile(`cannot change seed name because internal domain would change from "([^"]*)" to "([^"]*)"`)
	defaultRefusal      = regexp.MustCompile(`because the shoot uses the default domain "([^"]*)" which is not supported by the new seed`)
)

// RefusalOf reads the API server's answer to a migration of a shoot from one
// seed to another: a refusal by admission (Forbidden) or validation (Invalid)
// becomes a MigrationRefusal, worded as algorithm.CheckMigration's; any other
// error (a conflict, a lost connection) is no refusal and gives nil.
func RefusalOf(err error, from, to string) *algorithm.MigrationRefusal {
	if err == nil || !(apierrors.IsForbidden(err) || apierrors.IsInvalid(err)) {
		return nil
	}
	msg := err.Error()
	r := &algorithm.MigrationRefusal{From: from, To: to}
	switch {
	case sourceBackupRefusal.MatchString(msg):
		r.Reason = algorithm.SourceWithoutBackup
	case destBackupRefusal.MatchString(msg):
		r.Reason = algorithm.DestinationWithoutBackup
	case domainRefusal.MatchString(msg):
		m := domainRefusal.FindStringSubmatch(msg)
		r.Reason, r.FromDomain, r.ToDomain = algorithm.InternalDomainDiffers, m[1], m[2]
	case defaultRefusal.MatchString(msg):
		r.Reason, r.DefaultDomain = algorithm.DefaultDomainMissing, defaultRefusal.FindStringSubmatch(msg)[1]
	default:
		r.Reason, r.Message = algorithm.OtherRefusal, msg
	}
	return r
}
