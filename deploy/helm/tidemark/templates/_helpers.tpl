{{/* tidemark.fullname is the prefix of every object: the release name, plus -tidemark unless it says so already. */}}
{{- define "tidemark.fullname" -}}
{{- if contains "tidemark" .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-tidemark" .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* tidemark.selector selects one component's pods; call with (dict "root" $ "component" "reconciler"). */}}
{{- define "tidemark.selector" -}}
app.kubernetes.io/name: tidemark
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* tidemark.labels are the selector labels plus the chart's. */}}
{{- define "tidemark.labels" -}}
{{ include "tidemark.selector" . }}
app.kubernetes.io/part-of: tidemark
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | replace "+" "_" }}
{{- end -}}

{{/* tidemark.redisUrl: the bundled Redis's password comes from TIDEMARK_REDIS_PASSWORD, set just before (see tidemark.redisEnv). */}}
{{- define "tidemark.redisUrl" -}}
{{- if .Values.redis.enabled -}}
{{- printf "redis://default:$(TIDEMARK_REDIS_PASSWORD)@%s-redis:6379" (include "tidemark.fullname" .) -}}
{{- else -}}
{{- required "redis.externalUrl is required when redis.enabled is false" .Values.redis.externalUrl -}}
{{- end -}}
{{- end -}}

{{- define "tidemark.image" -}}
{{- printf "%s:%s" .image.repository (default .root.Chart.AppVersion .image.tag) -}}
{{- end -}}

{{/* tidemark.noWildcard fails the render when a list of RBAC words holds '*'. */}}
{{- define "tidemark.noWildcard" -}}
{{- range .words -}}
{{- if contains "*" . -}}
{{- fail (printf "rbac: %q in %s: wildcards are not allowed; list each resource and verb" . $.where) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
  tidemark.noPrivilegeVerbs fails the render when extra rules would let the reconciler grant more
  than it holds (escalate, bind) or act as someone else (impersonate). Impersonation is granted only
  through `tenants`, on exactly the named ServiceAccounts.
*/}}
{{- define "tidemark.noPrivilegeVerbs" -}}
{{- range .words -}}
{{- if has (lower .) (list "escalate" "bind" "impersonate") -}}
{{- fail (printf "rbac: verb %q in %s is refused: escalate and bind let the reconciler grant what it does not hold, and impersonate is given only through tenants[].serviceAccount" . $.where) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* tidemark.podSpreading prefers one pod of a component per node. */}}
{{- define "tidemark.podSpreading" -}}
affinity:
  podAntiAffinity:
    preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 100
        podAffinityTerm:
          topologyKey: kubernetes.io/hostname
          labelSelector:
            matchLabels:
              {{- include "tidemark.selector" . | nindent 14 }}
{{- end -}}

{{/* tidemark.redisEgress is the egress rule to Redis: the chart's pods, or any address for an external Redis. */}}
{{- define "tidemark.redisEgress" -}}
{{- if .Values.redis.enabled -}}
- to:
    - podSelector:
        matchLabels:
          {{- include "tidemark.selector" (dict "root" $ "component" "redis") | nindent 10 }}
  ports:
    - port: 6379
      protocol: TCP
{{- else -}}
- ports:
    - port: {{ (urlParse .Values.redis.externalUrl).host | splitList ":" | last | default "6379" }}
      protocol: TCP
{{- end -}}
{{- end -}}

{{/* tidemark.clusterNames is the comma-separated list of the clusters in config.clusters. */}}
{{- define "tidemark.clusterNames" -}}
{{- $names := list -}}
{{- range .Values.config.clusters -}}
{{- $names = append $names .name -}}
{{- end -}}
{{- join "," $names -}}
{{- end -}}

{{/* tidemark.redisSecret names the Secret holding the bundled Redis's password (key `password`). */}}
{{- define "tidemark.redisSecret" -}}
{{- default (printf "%s-redis-auth" (include "tidemark.fullname" .)) .Values.redis.auth.existingSecret -}}
{{- end -}}

{{/* tidemark.redisEnv is the env of a pod that talks to Redis: the password first, then the URL that uses it. */}}
{{- define "tidemark.redisEnv" -}}
{{- if .Values.redis.enabled }}
- name: TIDEMARK_REDIS_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ include "tidemark.redisSecret" . }}
      key: password
{{- end }}
- name: TIDEMARK_REDIS_URL
  value: {{ include "tidemark.redisUrl" . | quote }}
{{- end -}}
