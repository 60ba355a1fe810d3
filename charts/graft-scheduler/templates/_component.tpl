{{- define "graft-scheduler.configKind" -}}SchedulerConfiguration{{- end }}

{{/*
What graft-scheduler does with the API, and nothing more:
- watches Shoots, Seeds and CloudProfiles through informers (no direct reads);
- binds a Shoot with a merge patch of spec.seedName carrying the read
  resourceVersion;
- writes status.lastOperation of Shoots it cannot place (merge patch of status),
  and clears a Pending one once bound, reading the Shoot again (get) when
  that write meets a conflict;
- watches the region ConfigMaps of config.regionConfigNamespace only
  (label-filtered, which RBAC cannot express), through a Role there: a
  ConfigMap anywhere else must not steer decisions;
- records Events (Scheduled, SchedulingFailed);
- with config.api core.gardener.cloud, all of the above on Gardener's
  Shoots, Seeds and CloudProfiles instead of graft's, and nothing on
  core.graft.dev: a binding is one merge patch of shoots/binding,
  preconditioned on the resourceVersion decided on;
- when it starts leading, annotates its own Lease with the scheduling
  configuration it applies (scheduler.graft.dev/scheduling-configuration) for
  graftctl: an update of the Lease read with it as holder, preconditioned on
  that read's resourceVersion, which the lease Role's get and update on this
  one Lease name already allow (no patch, no other Lease).
*/}}
{{- define "graft-scheduler.rules" -}}
{{- $api := .Values.config.api | default "core.graft.dev" }}
{{- if eq $api "core.gardener.cloud" -}}
- apiGroups: ["core.gardener.cloud"]
  resources: ["shoots"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["core.gardener.cloud"]
  resources: ["shoots/binding"]
  verbs: ["patch"]
- apiGroups: ["core.gardener.cloud"]
  resources: ["shoots/status"]
  verbs: ["patch"]
- apiGroups: ["core.gardener.cloud"]
  resources: ["seeds"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["core.gardener.cloud"]
  resources: ["cloudprofiles", "namespacedcloudprofiles"]
  verbs: ["list", "watch"]
# The Project of a shoot's namespace, for Gardener's default-domain rule.
- apiGroups: ["core.gardener.cloud"]
  resources: ["projects"]
  verbs: ["list", "watch"]
{{- else if eq $api "core.graft.dev" -}}
- apiGroups: ["core.graft.dev"]
  resources: ["shoots"]
  verbs: ["get", "list", "watch", "patch"]
- apiGroups: ["core.graft.dev"]
  resources: ["shoots/status"]
  verbs: ["patch"]
- apiGroups: ["core.graft.dev"]
  resources: ["seeds"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["core.graft.dev"]
  resources: ["cloudprofiles", "namespacedcloudprofiles"]
  verbs: ["list", "watch"]
{{- else }}
{{- fail (printf "config.api %q: graft-scheduler works on core.graft.dev or core.gardener.cloud" $api) }}
{{- end }}
# core/v1 Events through client-go's broadcaster: new ones are created,
# repeated ones are patched (count, lastTimestamp).
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
{{- end }}

{{/* Rules of the Role in config.regionConfigNamespace. */}}
{{- define "graft-scheduler.regionConfigRules" -}}
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["list", "watch"]
{{- end }}

{{/* Metrics NOTES.txt points to (see pkg/scheduler/metrics.go). */}}
{{- define "graft-scheduler.metricsToWatch" -}}
graft_scheduler_pending_shoots{queue="unschedulable"}     shoots no seed fits now
graft_scheduler_schedule_attempts_total{result="error"}   bindings the API server refused
graft_scheduler_scheduling_duration_seconds               shoot creation to binding
graft_scheduler_requeues_total{trigger="periodic",outcome="scheduled"}   changes the queueing hints missed
{{- end }}

{{/* Alerts of the PrometheusRule (graft-component.prometheusRule). */}}
{{- define "graft-scheduler.alerts" -}}
{{- $sel := include "graft-component.alertSelector" . }}
{{- $for := .Values.metrics.prometheusRule.unschedulableFor }}
- alert: GraftShootsUnschedulable
  expr: max by (namespace, job) (graft_scheduler_pending_shoots{queue="unschedulable", {{ $sel }}}) > 0
  for: {{ $for }}
  labels:
    severity: warning
    component: graft-scheduler
  annotations:
    summary: "Shoots have found no seed for {{ $for }}."
    description: {{ printf "%s shoots wait for a seed: no seed passes their filters and no change has helped them for %s. graftctl describe shoot says why." `{{ $value }}` $for | quote }}
    runbook_url: {{ include "graft-component.runbookURL" (dict "root" . "alert" "GraftShootsUnschedulable") }}
- alert: GraftBindingErrors
  expr: sum by (namespace, job) (rate(graft_scheduler_schedule_attempts_total{result="error", {{ $sel }}}[10m])) > 0
  for: 10m
  labels:
    severity: warning
    component: graft-scheduler
  annotations:
    summary: "graft-scheduler's bindings fail."
    description: "Shoots that have a seed are not bound: the API server refuses graft-scheduler's writes ({{`{{ $value | humanize }}`}} per second over 10 minutes)."
    runbook_url: {{ include "graft-component.runbookURL" (dict "root" . "alert" "GraftBindingErrors") }}
{{- end }}
