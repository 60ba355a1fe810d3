{{/*
graft-component.notes is the body of a component chart's NOTES.txt: how to
see that the component runs, which replica leads, whether it is healthy and
where its metrics are, all from the values it was installed with. The chart's
"<chart>.metricsToWatch" template lists the metrics worth a look.
*/}}
{{- define "graft-component.notes" -}}
{{- $ns := .Release.Namespace }}
{{- $fullname := include "graft-component.fullname" . }}
{{- $selector := printf "app.kubernetes.io/name=%s,app.kubernetes.io/instance=%s" (include "graft-component.name" .) .Release.Name }}
{{- $healthPort := include "graft-component.healthPort" . }}
{{- $ports := list $healthPort }}
{{- if include "graft-component.metricsEnabled" . }}
{{- $ports = append $ports (include "graft-component.metricsPort" .) | uniq }}
{{- end }}
{{ .Chart.Name }} runs as deployment/{{ $fullname }} in namespace {{ $ns }} with {{ .Values.replicaCount }} replica(s).

  kubectl -n {{ $ns }} get deployment {{ $fullname }}
  kubectl -n {{ $ns }} get pods -l {{ $selector }}

LEADER
{{- if include "graft-component.leaderElect" . }}
{{- $leaseNS := include "graft-component.leaseNamespace" . }}
{{- $lease := include "graft-component.leaseName" . }}
{{- $le := .Values.config.leaderElection }}
Only the replica holding Lease {{ $leaseNS }}/{{ $lease }} works; the others stand by.
Its holder is "<pod name>_<random suffix>"; a renewTime older than
{{ $le.leaseDuration | default "15s" }} (leaseDuration) means that no replica leads:

  kubectl -n {{ $leaseNS }} get lease {{ $lease }} -o jsonpath='{.spec.holderIdentity}{"  renewed "}{.spec.renewTime}{"\n"}'
  LEADER=$(kubectl -n {{ $leaseNS }} get lease {{ $lease }} -o jsonpath='{.spec.holderIdentity}' | cut -d_ -f1)
{{- else }}
Leader election is off (config.leaderElection.leaderElect: false): the one replica works.

  LEADER=$(kubectl -n {{ $ns }} get pods -l {{ $selector }} -o jsonpath='{.items[0].metadata.name}')
{{- end }}
  kubectl -n {{ $ns }} port-forward pod/$LEADER {{ join " " $ports }} &

HEALTH (port {{ $healthPort }})
/healthz answers "ok" while the process is alive; /readyz fails while informers
have not synced or while the leader's lease renewal is late. ?verbose names each check.

  curl -s localhost:{{ $healthPort }}/healthz
  curl -s 'localhost:{{ $healthPort }}/readyz?verbose'

METRICS
{{- if include "graft-component.metricsEnabled" . }}
{{- $metricsPort := include "graft-component.metricsPort" . }}
/metrics on port {{ $metricsPort }}
{{- if .Values.metrics.service.enabled }} (Service {{ $fullname }}-metrics, port {{ .Values.metrics.service.port | default $metricsPort }}
{{- if .Values.metrics.serviceMonitor.enabled }}, scraped through a ServiceMonitor{{ end }})
{{- end }}.
Read the leader's: a standby does no work.

  curl -s localhost:{{ $metricsPort }}/metrics | grep '^graft_'

{{ include (printf "%s.metricsToWatch" .Chart.Name) . | trim | indent 2 }}
  graft_fence_refused_writes_total{component="{{ .Chart.Name }}"}
      writes the leader held back: its lease renewal was late, or its informers were catching up
{{- else }}
Off (config.server.metricsBindAddress is "0").
{{- end }}
{{- end }}
