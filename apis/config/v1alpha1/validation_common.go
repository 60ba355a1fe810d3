package v1alpha1

import (
	"net"
	"strconv"

	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Validate returns every invalid common field; fldPath is where the common
// fields sit (the root for the inlined struct).
func (c *CommonConfiguration) Validate(fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList

	ccPath := fldPath.Child("clientConnection")
	cc := c.ClientConnection
	if cc.Burst < 0 {
		errs = append(errs, field.Invalid(ccPath.Child("burst"), cc.Burst, "must not be negative"))
	} else if cc.QPS > 0 && cc.Burst < 1 {
		errs = append(errs, field.Invalid(ccPath.Child("burst"), cc.Burst, "must be at least 1 when qps is positive"))
	}
	switch cc.ContentType {
	case "application/json", "application/vnd.kubernetes.protobuf":
	default:
		errs = append(errs, field.NotSupported(ccPath.Child("contentType"), cc.ContentType,
			[]string{"application/json", "application/vnd.kubernetes.protobuf"}))
	}

	lePath := fldPath.Child("leaderElection")
	le := c.LeaderElection
	if IsLeaderElectionEnabled(le) {
		if le.LeaseDuration.Duration <= 0 {
			errs = append(errs, field.Invalid(lePath.Child("leaseDuration"), le.LeaseDuration.Duration.String(), "must be greater than zero"))
		}
		if le.RenewDeadline.Duration <= 0 {
			errs = append(errs, field.Invalid(lePath.Child("renewDeadline"), le.RenewDeadline.Duration.String(), "must be greater than zero"))
		}
		if le.RetryPeriod.Duration <= 0 {
			errs = append(errs, field.Invalid(lePath.Child("retryPeriod"), le.RetryPeriod.Duration.String(), "must be greater than zero"))
		}
		if le.LeaseDuration.Duration > 0 && le.RenewDeadline.Duration > 0 && le.LeaseDuration.Duration <= le.RenewDeadline.Duration {
			errs = append(errs, field.Invalid(lePath.Child("leaseDuration"), le.LeaseDuration.Duration.String(), "must be greater than renewDeadline"))
		}
		if le.RenewDeadline.Duration > 0 && le.RetryPeriod.Duration > 0 && le.RenewDeadline.Duration <= le.RetryPeriod.Duration {
			errs = append(errs, field.Invalid(lePath.Child("renewDeadline"), le.RenewDeadline.Duration.String(), "must be greater than retryPeriod"))
		}
		if le.ResourceLock != LeasesResourceLock {
			errs = append(errs, field.NotSupported(lePath.Child("resourceLock"), le.ResourceLock, []string{LeasesResourceLock}))
		}
		if le.ResourceName == "" {
			errs = append(errs, field.Required(lePath.Child("resourceName"), "the name of the Lease"))
		} else {
			for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(le.ResourceName, false) {
				errs = append(errs, field.Invalid(lePath.Child("resourceName"), le.ResourceName, msg))
			}
		}
		if le.ResourceNamespace == "" {
			errs = append(errs, field.Required(lePath.Child("resourceNamespace"), "the namespace of the Lease"))
		} else {
			for _, msg := range apimachineryvalidation.ValidateNamespaceName(le.ResourceNamespace, false) {
				errs = append(errs, field.Invalid(lePath.Child("resourceNamespace"), le.ResourceNamespace, msg))
			}
		}
	}

	serverPath := fldPath.Child("server")
	errs = append(errs, validateBindAddress(serverPath.Child("healthProbeBindAddress"), c.Server.HealthProbeBindAddress)...)
	errs = append(errs, validateBindAddress(serverPath.Child("metricsBindAddress"), c.Server.MetricsBindAddress)...)

	logPath := fldPath.Child("logging")
	if c.Logging.Verbosity < 0 {
		errs = append(errs, field.Invalid(logPath.Child("verbosity"), c.Logging.Verbosity, "must not be negative"))
	}
	switch c.Logging.Format {
	case LogFormatText, LogFormatJSON:
	default:
		errs = append(errs, field.NotSupported(logPath.Child("format"), c.Logging.Format, []LogFormat{LogFormatText, LogFormatJSON}))
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
