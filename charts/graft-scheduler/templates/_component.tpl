{{- define "graft-scheduler.configKind" -}}SchedulerConfiguration{{- end }}

{{/*
What graft-scheduler does with the API, and nothing more:
- watches Shoots, Seeds and CloudProfiles through informers (no direct reads);
- binds a Shoot with a merge patch of spec.seedName carrying the read
  resourceVersion;
- writes status.lastOperation of Shoots it cannot place (merge patch of status);
- watches the region ConfigMaps (label-filtered, which RBAC cannot express);
- records Events (Scheduled, SchedulingFailed).
*/}}
{{- define "graft-scheduler.rules" -}}
- apiGroups: ["core.graft.dev"]
  resources: ["shoots"]
  verbs: ["list", "watch", "patch"]
- apiGroups: ["core.graft.dev"]
  resources: ["shoots/status"]
  verbs: ["patch"]
- apiGroups: ["core.graft.dev"]
  resources: ["seeds"]
  verbs: ["get", "list", "watch"]
- apiGroups: ["core.graft.dev"]
  resources: ["cloudprofiles"]
  verbs: ["list", "watch"]
- apiGroups: [""]
  resources: ["configmaps"]
  verbs: ["list", "watch"]
# core/v1 Events through client-go's broadcaster: new ones are created,
# repeated ones are patched (count, lastTimestamp).
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
{{- end }}
