{{- define "graft-descheduler.configKind" -}}DeschedulerConfiguration{{- end }}

{{/*
What graft-descheduler does with the API, and nothing more:
- watches Shoots, Seeds, CloudProfiles and the region ConfigMaps (requireFit
  asks the scheduling algorithm, which needs all of them), the ConfigMaps of
  config.regionConfigNamespace only, through a Role there;
- evicts a Shoot with one merge patch (spec.seedName cleared, two
  annotations), preconditioned on the resourceVersion read; it writes no status;
- records Events on Shoots and Seeds (Descheduled, EvictionSkipped, WouldDeschedule);
- patches a Seed's spec.taints once to record timeAdded on a NoExecute taint
  that lacks it (preconditioned on the resourceVersion, reading the Seed again
  on a conflict), so that tolerations survive restarts and failovers;
- with config.api core.gardener.cloud, all of the above on Gardener's Shoots,
  Seeds, CloudProfiles and Projects (the default-domain rule) instead of
  graft's, and nothing on core.graft.dev: an eviction is a control-plane
  migration, one merge patch of shoots/binding (spec.seedName and the same
  annotations) preconditioned on the resourceVersion read, and timeAdded is
  kept in the Seed's graft.dev/taints annotation;
- on a conflict, gets the Shoot and its Seed again and decides again on
  them; the last of a few such writes is a JSON patch (of the Shoot, on
  Gardener of shoots/binding) that tests only what the decision read.
*/}}
{{- define "graft-descheduler.rules" -}}
{{- $api := .Values.config.api | default "core.graft.dev" }}
{{- if eq $api "core.gardener.cloud" -}}
- apiGroups: ["core.gardener.cloud"]
  resources: ["shoots"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["core.gardener.cloud"]
  resources: ["shoots/binding"]
  verbs: ["patch"]
- apiGroups: ["core.gardener.cloud"]
  resources: ["seeds", "cloudprofiles", "namespacedcloudprofiles", "projects"]
  verbs: ["list", "watch"]
- apiGroups: ["core.gardener.cloud"]
  resources: ["seeds"]
  verbs: ["get", "patch"]
{{- else if eq $api "core.graft.dev" -}}
- apiGroups: ["core.graft.dev"]
  resources: ["shoots"]
  verbs: ["get", "list", "watch", "patch"]
- apiGroups: ["core.graft.dev"]
  resources: ["seeds", "cloudprofiles", "namespacedcloudprofiles"]
  verbs: ["list", "watch"]
- apiGroups: ["core.graft.dev"]
  resources: ["seeds"]
  verbs: ["get", "patch"]
{{- else }}
{{- fail (printf "config.api %q: graft-descheduler works on core.graft.dev or core.gardener.cloud" $api) }}
{{- end }}
# core/v1 Events through client-go's broadcaster: new ones are created,
# repeated ones are patched (count, lastTimestamp).
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
{{- end }}

{{/* Rules of the Role in config.regionConfigNamespace. */}}
{{- define "graft-descheduler.regionConfigRules" -}}
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["list", "watch"]
{{- end }}

{{/* Metrics NOTES.txt points to (see pkg/descheduler/metrics.go). */}}
{{- define "graft-descheduler.metricsToWatch" -}}
graft_descheduler_evictions_total{result="skipped_no_fit"}   evictions held back: no other seed fits
graft_descheduler_shoots_to_move                             shoots that must move and were not evicted
graft_descheduler_shoots_deferred                            moves waiting for the shoot's maintenance window or deadline
graft_descheduler_pending_evicted                            evicted shoots still waiting for a seed
graft_descheduler_migrations_in_flight                       control-plane migrations in flight (core.gardener.cloud)
graft_descheduler_migrations_stuck                           moves failed or in flight past migrationTimeout, in no budget
graft_descheduler_live_migration_fallbacks_total             live migrations that gardenlet ran classically (downtime)
graft_descheduler_pass_duration_seconds                      one pass over the seeds, writes included
{{- end }}

{{/* Alerts of the PrometheusRule (graft-component.prometheusRule). */}}
{{- define "graft-descheduler.alerts" -}}
{{- $sel := include "graft-component.alertSelector" . }}
{{- $for := .Values.metrics.prometheusRule.evictionsStalledFor }}
- alert: GraftEvictionsStalled
  expr: |-
    sum by (namespace, job) (graft_descheduler_shoots_to_move{plugin="NoExecuteTaints", {{ $sel }}}) > 0
    unless on (namespace, job)
    sum by (namespace, job) (increase(graft_descheduler_evictions_total{result=~"evicted|dry_run", {{ $sel }}}[{{ $for }}])) > 0
  for: {{ $for }}
  labels:
    severity: warning
    component: graft-descheduler
  annotations:
    summary: "Shoots wait to leave NoExecute-tainted seeds and nothing moves."
    description: {{ printf "%s shoots must leave seeds whose NoExecute taints they do not tolerate, and graft-descheduler has evicted none for %s: a safety rule or a limit holds them (no other seed fits, too many evicted shoots pending, migrations in flight)." `{{ $value }}` $for | quote }}
    runbook_url: {{ include "graft-component.runbookURL" (dict "root" . "alert" "GraftEvictionsStalled") }}
- alert: GraftDeschedulerEvictionErrors
  expr: sum by (namespace, job, result) (rate(graft_descheduler_evictions_total{result=~"error|refused", {{ $sel }}}[10m])) > 0
  for: 10m
  labels:
    severity: warning
    component: graft-descheduler
  annotations:
    summary: "graft-descheduler's evictions fail."
    description: "Evictions end in {{`{{ $labels.result }}`}} ({{`{{ $value | humanize }}`}} per second over 10 minutes): the API server (or, on Gardener, its admission) refuses them, and the shoots stay where they must not."
    runbook_url: {{ include "graft-component.runbookURL" (dict "root" . "alert" "GraftDeschedulerEvictionErrors") }}
- alert: GraftMoveStuck
  expr: max by (namespace, job) (graft_descheduler_migrations_stuck{ {{- $sel -}} }) > 0
  for: 5m
  labels:
    severity: warning
    component: graft-descheduler
  annotations:
    summary: "A shoot's move is stuck."
    description: "{{`{{ $value }}`}} moves are stuck: a control-plane migration failed or is in flight past migrationTimeout (on core.graft.dev, an evicted shoot no seed has taken for that long). The tenant's control plane may be down; the moves no longer hold up others. MoveStuck Events name the shoots."
    runbook_url: {{ include "graft-component.runbookURL" (dict "root" . "alert" "GraftMoveStuck") }}
- alert: GraftLiveMigrationFellBack
  expr: sum by (namespace, job) (increase(graft_descheduler_live_migration_fallbacks_total{ {{- $sel -}} }[1h])) > 0
  labels:
    severity: warning
    component: graft-descheduler
  annotations:
    summary: "A live control-plane migration ran as a classic one."
    description: "{{`{{ $value | humanize }}`}} control-plane migrations graft asked to be live ran as classic Migrate/Restore in the last hour, with API-server downtime: the gardenlet versions declared in liveMigrationGardenletVersions do not run the live flow. graft no longer times moves between those versions as live; LiveMigrationFellBack Events name the shoots."
    runbook_url: {{ include "graft-component.runbookURL" (dict "root" . "alert" "GraftLiveMigrationFellBack") }}
{{- end }}
