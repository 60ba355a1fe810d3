package v1alpha1

import (
	"fmt"
	"net"
	"strconv"

	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	componentbaseconfig "k8s.io/component-base/config"
	componentbaseconfigv1alpha1 "k8s.io/component-base/config/v1alpha1"
	componentbasevalidation "k8s.io/component-base/config/validation"
	"k8s.io/component-base/featuregate"
	logsapi "k8s.io/component-base/logs/api/v1"
	// component-base accepts a format only once it is registered; json is
	// one of the formats graft's configuration offers.
	_ "k8s.io/component-base/logs/json/register"
)

// Validate returns every invalid common field; fldPath is where the common
// fields sit (the root for the inlined struct).
func (c *CommonConfiguration) Validate(fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList

	errs = append(errs, validateClientConnection(c.ClientConnection, fldPath.Child("clientConnection"))...)
	errs = append(errs, validateLeaderElection(c.LeaderElection, fldPath.Child("leaderElection"))...)

	serverPath := fldPath.Child("server")
	errs = append(errs, validateBindAddress(serverPath.Child("healthProbeBindAddress"), c.Server.HealthProbeBindAddress)...)
	errs = append(errs, validateBindAddress(serverPath.Child("metricsBindAddress"), c.Server.MetricsBindAddress)...)

	errs = append(errs, validateLogging(&c.Logging, fldPath.Child("logging"))...)
	return errs
}

// validateLogging validates the logging block with component-base's
// validation against a feature gate that knows the logging gates at their
// defaults, the gate the daemons apply the block with: the json format is a
// beta option, enabled by default, and the alpha format options (split
// streams, buffer sizes) are refused.
func validateLogging(l *logsapi.LoggingConfiguration, fldPath *field.Path) field.ErrorList {
	gate := featuregate.NewFeatureGate()
	if err := logsapi.AddFeatureGates(gate); err != nil {
		return field.ErrorList{field.InternalError(fldPath, fmt.Errorf("registering logging feature gates: %w", err))}
	}
	return logsapi.Validate(l, gate, fldPath)
}

// validateClientConnection validates the clientConnection block with
// component-base's validation (burst), then what graft adds: a burst that
// lets a positive qps send anything, and the content types graft's clients
// speak.
func validateClientConnection(cc componentbaseconfigv1alpha1.ClientConnectionConfiguration, fldPath *field.Path) field.ErrorList {
	var internal componentbaseconfig.ClientConnectionConfiguration
	if err := componentbaseconfigv1alpha1.Convert_v1alpha1_ClientConnectionConfiguration_To_config_ClientConnectionConfiguration(&cc, &internal, nil); err != nil {
		return field.ErrorList{field.InternalError(fldPath, err)}
	}
	errs := componentbasevalidation.ValidateClientConnectionConfiguration(&internal, fldPath)
	if cc.QPS > 0 && cc.Burst == 0 {
		errs = append(errs, field.Invalid(fldPath.Child("burst"), cc.Burst, "must be at least 1 when qps is positive"))
	}
	switch cc.ContentType {
	case "application/json", "application/vnd.kubernetes.protobuf":
	default:
		errs = append(errs, field.NotSupported(fldPath.Child("contentType"), cc.ContentType,
			[]string{"application/json", "application/vnd.kubernetes.protobuf"}))
	}
	return errs
}

// validateLeaderElection validates the leaderElection block with
// component-base's validation (positive durations, leaseDuration above
// renewDeadline, a lock, name and namespace), then what graft adds:
// renewDeadline above retryPeriod, the Lease as the only lock, and a name and
// namespace the API server accepts. graft elects a leader unless leaderElect
// is false; component-base's conversion would read an unset leaderElect as
// false.
func validateLeaderElection(le componentbaseconfigv1alpha1.LeaderElectionConfiguration, fldPath *field.Path) field.ErrorList {
	if !IsLeaderElectionEnabled(le) {
		return nil
	}
	var internal componentbaseconfig.LeaderElectionConfiguration
	if err := componentbaseconfigv1alpha1.Convert_v1alpha1_LeaderElectionConfiguration_To_config_LeaderElectionConfiguration(&le, &internal, nil); err != nil {
		return field.ErrorList{field.InternalError(fldPath, err)}
	}
	internal.LeaderElect = true
	errs := componentbasevalidation.ValidateLeaderElectionConfiguration(&internal, fldPath)
	if le.RenewDeadline.Duration > 0 && le.RetryPeriod.Duration > 0 && le.RenewDeadline.Duration <= le.RetryPeriod.Duration {
		errs = append(errs, field.Invalid(fldPath.Child("renewDeadline"), le.RenewDeadline.Duration.String(), "must be greater than retryPeriod"))
	}
	if le.ResourceLock != "" && le.ResourceLock != LeasesResourceLock {
		errs = append(errs, field.NotSupported(fldPath.Child("resourceLock"), le.ResourceLock, []string{LeasesResourceLock}))
	}
	if le.ResourceName != "" {
		for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(le.ResourceName, false) {
			errs = append(errs, field.Invalid(fldPath.Child("resourceName"), le.ResourceName, msg))
		}
	}
	if le.ResourceNamespace != "" {
		for _, msg := range apimachineryvalidation.ValidateNamespaceName(le.ResourceNamespace, false) {
			errs = append(errs, field.Invalid(fldPath.Child("resourceNamespace"), le.ResourceNamespace, msg))
		}
	}
	return errs
}

func validateBindAddress(fldPath *field.Path, addr string) field.ErrorList {
	if addr == DisabledBindAddress {
		return nil
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return field.ErrorList{field.Invalid(fldPath, addr, "must be host:port, :port or \"0\" to disable: "+err.Error())}
	}
	if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		return field.ErrorList{field.Invalid(fldPath, addr, "port must be a number from 0 to 65535")}
	}
	return nil
}
