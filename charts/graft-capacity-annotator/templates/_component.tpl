{{- define "graft-capacity-annotator.configKind" -}}CapacityAnnotatorConfiguration{{- end }}

{{/*
What graft-capacity-annotator does with the API, and nothing more:
- watches Seeds and Shoots through informers (usage is counted from Shoots);
- writes status.capacity, status.allocatable and status.usage of Seeds with a
  merge patch of the status subresource;
- adds and removes its not-ready taints with a merge patch of the Seed
  (resourceVersion precondition; on a conflict it reads the Seed again);
- records Events on Seeds (allocatable changed, OverCapacity, bad annotation);
- with config.api core.gardener.cloud, on Gardener's Seeds and Shoots
  instead of graft's, and nothing on core.graft.dev: no status write (gardenlet
  reports capacity and allocatable), the not-ready taints in spec.taints and
  the graft.dev/taints annotation;
- with config.forecast.enabled, also watches CloudProfiles,
  NamespacedCloudProfiles (and Projects on Gardener) and the region
  ConfigMaps (the forecast asks the scheduling algorithm which pending shoots
  wait for capacity alone), reads graft-scheduler's Lease, and on Gardener
  reads and patches the ManagedSeedSets of config.pools (spec.replicas and two
  annotations, preconditioned on the resourceVersion read) and cordons their
  seeds with the graft.dev/scale-in taint (the Seed patch above).
*/}}
{{- define "graft-capacity-annotator.rules" -}}
{{- $api := .Values.config.api | default "core.graft.dev" }}
{{- $forecast := (.Values.config.forecast | default dict).enabled }}
{{- $sets := false }}
{{- range (.Values.config.pools | default list) }}{{ if .managedSeedSet }}{{ $sets = true }}{{ end }}{{ end }}
{{- if eq $api "core.gardener.cloud" -}}
- apiGroups: ["core.gardener.cloud"]
  resources: ["seeds"]
  verbs: ["get", "list", "watch", "patch"]
- apiGroups: ["core.gardener.cloud"]
  resources: ["shoots"]
  verbs: ["list", "watch"]
{{- if $forecast }}
- apiGroups: ["core.gardener.cloud"]
  resources: ["cloudprofiles", "namespacedcloudprofiles", "projects"]
  verbs: ["list", "watch"]
{{- if $sets }}
- apiGroups: ["seedmanagement.gardener.cloud"]
  resources: ["managedseedsets"]
  verbs: ["get", "patch"]
{{- end }}
{{- end }}
{{- else if eq $api "core.graft.dev" -}}
- apiGroups: ["core.graft.dev"]
  resources: ["seeds"]
  verbs: ["get", "list", "watch", "patch"]
- apiGroups: ["core.graft.dev"]
  resources: ["seeds/status"]
  verbs: ["patch"]
- apiGroups: ["core.graft.dev"]
  resources: ["shoots"]
  verbs: ["list", "watch"]
{{- if $forecast }}
- apiGroups: ["core.graft.dev"]
  resources: ["cloudprofiles", "namespacedcloudprofiles"]
  verbs: ["list", "watch"]
{{- end }}
{{- else }}
{{- fail (printf "config.api %q: graft-capacity-annotator works on core.graft.dev or core.gardener.cloud" $api) }}
{{- end }}
# core/v1 Events through client-go's broadcaster: new ones are created,
# repeated ones are patched (count, lastTimestamp).
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
{{- end }}

{{/* The forecast reads the region ConfigMaps; without it, no Role for them. */}}
{{- define "graft-capacity-annotator.regionConfigRules" -}}
{{- if (.Values.config.forecast | default dict).enabled }}
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["list", "watch"]
{{- end }}
{{- end }}

{{/* Metrics NOTES.txt points to (see pkg/capacity/metrics.go). */}}
{{- define "graft-capacity-annotator.metricsToWatch" -}}
graft_seed_usage{resource="shoots"}                         shoots counted per seed, next to
graft_seed_allocatable{resource="shoots"}                   what each seed may host
graft_capacity_annotator_reconciles_total{result="error"}   seed reconciles that failed
{{- end }}

{{/* Alerts of the PrometheusRule (graft-component.prometheusRule). */}}
{{- define "graft-capacity-annotator.alerts" -}}
{{- $sel := include "graft-component.alertSelector" . }}
{{- $c := .Values.metrics.prometheusRule.seedCapacity }}
{{- $ratio := printf `max by (namespace, job, seed) (graft_seed_usage{resource="shoots", %s}) / max by (namespace, job, seed) (graft_seed_allocatable{resource="shoots", %s} > 0)` $sel $sel }}
- alert: GraftSeedApproachingCapacity
  expr: {{ printf "%s >= %v < %v" $ratio $c.warning $c.critical | quote }}
  for: {{ $c.for }}
  labels:
    severity: warning
    component: graft-capacity-annotator
  annotations:
    summary: {{ printf "Seed {{ $labels.seed }} hosts %v%% or more of the shoots it may." (printf "%.0f" (mulf $c.warning 100)) | quote }}
    description: "Seed {{`{{ $labels.seed }}`}} is at {{`{{ $value | humanizePercentage }}`}} of its allocatable shoots: new shoots soon go elsewhere or nowhere."
    runbook_url: {{ include "graft-component.runbookURL" (dict "root" . "alert" "GraftSeedApproachingCapacity") }}
- alert: GraftSeedApproachingCapacity
  expr: {{ printf "%s >= %v" $ratio $c.critical | quote }}
  for: {{ $c.for }}
  labels:
    severity: critical
    component: graft-capacity-annotator
  annotations:
    summary: {{ printf "Seed {{ $labels.seed }} hosts %v%% or more of the shoots it may." (printf "%.0f" (mulf $c.critical 100)) | quote }}
    description: "Seed {{`{{ $labels.seed }}`}} is at {{`{{ $value | humanizePercentage }}`}} of its allocatable shoots: it takes no more, and a seed out of service cannot be evacuated onto it."
    runbook_url: {{ include "graft-component.runbookURL" (dict "root" . "alert" "GraftSeedApproachingCapacity") }}
{{- $p := .Values.metrics.prometheusRule.pools }}
- alert: GraftPoolFullSoon
  expr: {{ printf `max by (namespace, job, kind, pool) (graft_capacity_pool_full_within_horizon{%s}) == 1` $sel | quote }}
  for: {{ $p.fullSoonFor }}
  labels:
    severity: warning
    component: graft-capacity-annotator
  annotations:
    summary: "{{`{{ $labels.kind | title }}`}} {{`{{ $labels.pool }}`}} is full or fills within the forecast horizon."
    description: "{{`{{ $labels.kind | title }}`}} {{`{{ $labels.pool }}`}} has no free slot for the shoots waiting for capacity, or fills within graft-capacity-annotator's horizon at the rate new shoots come: add seeds before shoots wait."
    runbook_url: {{ include "graft-component.runbookURL" (dict "root" . "alert" "GraftPoolFullSoon") }}
- alert: GraftPoolAtMaxReplicas
  expr: {{ printf `max by (namespace, job, pool) (graft_capacity_pool_at_max{%s}) == 1 and on (namespace, job, pool) max by (namespace, job, pool) (graft_capacity_pool_waiting_shoots{kind="pool", %s}) > 0` $sel $sel | quote }}
  for: {{ $p.atMaxFor }}
  labels:
    severity: critical
    component: graft-capacity-annotator
  annotations:
    summary: "Shoots wait for capacity in pool {{`{{ $labels.pool }}`}} and its ManagedSeedSet is at maxReplicas."
    description: "Shoots wait for capacity alone in pool {{`{{ $labels.pool }}`}}, and graft-capacity-annotator may not scale its ManagedSeedSet further: they stay pending until an operator adds capacity."
    runbook_url: {{ include "graft-component.runbookURL" (dict "root" . "alert" "GraftPoolAtMaxReplicas") }}
- alert: GraftSeedReconcileErrors
  expr: sum by (namespace, job) (rate(graft_capacity_annotator_reconciles_total{result="error", {{ $sel }}}[10m])) > 0
  for: 15m
  labels:
    severity: warning
    component: graft-capacity-annotator
  annotations:
    summary: "graft-capacity-annotator fails to update seeds."
    description: "Seed reconciles fail ({{`{{ $value | humanize }}`}} per second over 10 minutes): seeds' capacity, allocatable and usage go stale, and the scheduler decides on old numbers."
    runbook_url: {{ include "graft-component.runbookURL" (dict "root" . "alert" "GraftSeedReconcileErrors") }}
{{- end }}
