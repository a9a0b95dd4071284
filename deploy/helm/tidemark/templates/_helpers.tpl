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

{{/*
  tidemark.redisMode says how Tidemark reaches Redis: bundled, url (redis.externalUrl), sentinel or
  cluster; it fails the render when more than one way is set, or a Sentinel or Cluster value is incomplete.
*/}}
{{- define "tidemark.redisMode" -}}
{{- $redis := .Values.redis -}}
{{- $sentinel := $redis.sentinel | default dict -}}
{{- $cluster := $redis.cluster | default dict -}}
{{- $ways := list -}}
{{- if $redis.enabled }}{{ $ways = append $ways "redis.enabled" }}{{ end -}}
{{- if $redis.externalUrl }}{{ $ways = append $ways "redis.externalUrl" }}{{ end -}}
{{- if or $sentinel.nodes $sentinel.name }}{{ $ways = append $ways "redis.sentinel" }}{{ end -}}
{{- if $cluster.nodes }}{{ $ways = append $ways "redis.cluster" }}{{ end -}}
{{- if and (gt (len $ways) 1) (or $sentinel.nodes $sentinel.name $cluster.nodes) -}}
{{- fail (printf "%s: set only one way to reach Redis (a Sentinel group or a Redis Cluster needs redis.enabled=false and no redis.externalUrl)" (join " and " $ways)) -}}
{{- end -}}
{{- if or $sentinel.nodes $sentinel.name -}}
{{- if not $sentinel.name }}{{ fail "redis.sentinel.name: name the primary the sentinels watch (their `sentinel monitor` name)" }}{{ end -}}
{{- if not $sentinel.nodes }}{{ fail "redis.sentinel.nodes: list some sentinels as host:port" }}{{ end -}}
{{- include "tidemark.redisNodesValid" (dict "nodes" $sentinel.nodes "where" "redis.sentinel.nodes") -}}
{{- include "tidemark.redisLoginValid" . -}}
sentinel
{{- else if $cluster.nodes -}}
{{- include "tidemark.redisNodesValid" (dict "nodes" $cluster.nodes "where" "redis.cluster.nodes") -}}
{{- include "tidemark.redisLoginValid" . -}}
{{- if $redis.auth.sentinelRequiresPassword }}{{ fail "redis.auth.sentinelRequiresPassword: only a Sentinel group has sentinels; unset it for redis.cluster" }}{{ end -}}
cluster
{{- else if $redis.enabled -}}
bundled
{{- else -}}
url
{{- end -}}
{{- end -}}

{{/* tidemark.redisNodesValid fails the render on a node that is not host:port. */}}
{{- define "tidemark.redisNodesValid" -}}
{{- range $index, $node := .nodes -}}
{{- if not (regexMatch "^(\\[[0-9a-fA-F:]+\\]|[A-Za-z0-9.-]+):[0-9]{1,5}$" (toString $node)) -}}
{{- fail (printf "%s[%d]: %q is not host:port (for example redis-0.redis:26379)" $.where $index (toString $node)) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* tidemark.redisLoginValid: a username or a sentinel login needs the Secret that holds the passwords. */}}
{{- define "tidemark.redisLoginValid" -}}
{{- $auth := .Values.redis.auth -}}
{{- if not $auth.existingSecret -}}
{{- if $auth.username }}{{ fail "redis.auth.username: a username needs its password, key `password` of redis.auth.existingSecret" }}{{ end -}}
{{- if $auth.sentinelRequiresPassword }}{{ fail "redis.auth.sentinelRequiresPassword: the sentinels' password is key `sentinel-password` of redis.auth.existingSecret; name that Secret" }}{{ end -}}
{{- end -}}
{{- if and $auth.sentinelUsername (not $auth.sentinelRequiresPassword) }}{{ fail "redis.auth.sentinelUsername: a username needs its password; set redis.auth.sentinelRequiresPassword=true" }}{{ end -}}
{{- end -}}

{{/*
  tidemark.redisConfig is the reconciler's redis.sentinel or redis.cluster (empty for a URL). Passwords
  are references to the environment that tidemark.redisEnv fills from the Secret, never values.
*/}}
{{- define "tidemark.redisConfig" -}}
{{- $mode := include "tidemark.redisMode" . | trim -}}
{{- $auth := .Values.redis.auth -}}
{{- $login := dict -}}
{{- if $auth.existingSecret }}{{ $_ := set $login "password" (dict "env" "TIDEMARK_REDIS_PASSWORD") }}{{ end -}}
{{- if $auth.username }}{{ $_ := set $login "username" $auth.username }}{{ end -}}
{{- if eq $mode "sentinel" -}}
{{- $sentinel := merge (dict "name" .Values.redis.sentinel.name "nodes" .Values.redis.sentinel.nodes) $login -}}
{{- if $auth.sentinelRequiresPassword }}{{ $_ := set $sentinel "sentinelPassword" (dict "env" "TIDEMARK_REDIS_SENTINEL_PASSWORD") }}{{ end -}}
{{- if $auth.sentinelUsername }}{{ $_ := set $sentinel "sentinelUsername" $auth.sentinelUsername }}{{ end -}}
{{- toYaml (dict "sentinel" $sentinel) -}}
{{- else if eq $mode "cluster" -}}
{{- toYaml (dict "cluster" (merge (dict "nodes" .Values.redis.cluster.nodes) $login)) -}}
{{- end -}}
{{- end -}}

{{/* tidemark.redisPorts are the TCP ports Tidemark's pods open to an external Redis, one per line. */}}
{{- define "tidemark.redisPorts" -}}
{{- $mode := include "tidemark.redisMode" . | trim -}}
{{- $ports := list -}}
{{- if .Values.agent.enabled -}}
{{- $ports = append $ports (toString .Values.agent.redis.port) -}}
{{- else if eq $mode "url" -}}
{{- $ports = append $ports ((urlParse .Values.redis.externalUrl).host | splitList ":" | last | default "6379") -}}
{{- else -}}
{{- $nodes := ternary .Values.redis.sentinel.nodes .Values.redis.cluster.nodes (eq $mode "sentinel") -}}
{{- range $nodes }}{{ $ports = append $ports (toString . | splitList ":" | last) }}{{ end -}}
{{- if eq $mode "sentinel" }}{{ $ports = append $ports (toString .Values.redis.sentinel.dataPort) }}{{ end -}}
{{- end -}}
{{- range ($ports | uniq) }}
{{ . }}
{{- end -}}
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
{{- if .image.digest -}}
{{- if not (regexMatch "^sha256:[0-9a-f]{64}$" .image.digest) -}}
{{- fail (printf "image digest %q: give sha256:<64 hex digits> (scripts/build-images writes it to dist/images/<app>.json)" .image.digest) -}}
{{- end -}}
{{- printf "%s@%s" .image.repository .image.digest -}}
{{- else -}}
{{- printf "%s:%s" .image.repository (default .root.Chart.AppVersion .image.tag) -}}
{{- end -}}
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
    {{- range (include "tidemark.redisPorts" . | trim | splitList "\n") }}
    - port: {{ int . }}
      protocol: TCP
    {{- end }}
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
{{- $mode := include "tidemark.redisMode" . | trim -}}
{{- $auth := .Values.redis.auth -}}
{{- /* With redis.externalUrl, redis.auth.existingSecret keeps the password out of the URL: write $(TIDEMARK_REDIS_PASSWORD) in it. */}}
{{- if or (eq $mode "bundled") (and (has $mode (list "sentinel" "cluster" "url")) $auth.existingSecret) }}
- name: TIDEMARK_REDIS_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ include "tidemark.redisSecret" . }}
      key: password
{{- end }}
{{- if has $mode (list "bundled" "url") }}
- name: TIDEMARK_REDIS_URL
  value: {{ include "tidemark.redisUrl" . | quote }}
{{- else }}
{{- /* The dashboard reads these; the reconciler reads the same from its tidemark.yaml (tidemark.redisConfig). */}}
{{- if $auth.username }}
- name: TIDEMARK_REDIS_USERNAME
  value: {{ $auth.username | quote }}
{{- end }}
{{- if eq $mode "sentinel" }}
- name: TIDEMARK_REDIS_SENTINELS
  value: {{ join "," .Values.redis.sentinel.nodes | quote }}
- name: TIDEMARK_REDIS_SENTINEL_NAME
  value: {{ .Values.redis.sentinel.name | quote }}
{{- if $auth.sentinelRequiresPassword }}
- name: TIDEMARK_REDIS_SENTINEL_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ $auth.existingSecret }}
      key: sentinel-password
{{- end }}
{{- if $auth.sentinelUsername }}
- name: TIDEMARK_REDIS_SENTINEL_USERNAME
  value: {{ $auth.sentinelUsername | quote }}
{{- end }}
{{- else }}
- name: TIDEMARK_REDIS_CLUSTER_NODES
  value: {{ join "," .Values.redis.cluster.nodes | quote }}
{{- end }}
{{- end }}
{{- end -}}

{{/*
tidemark.sourceNamespaces is the JSON list of the namespaces whose Source objects are served:
sourceObjects.namespaces, or the release namespace; ["*"] alone means every namespace.
*/}}
{{- define "tidemark.sourceNamespaces" -}}
{{- $namespaces := .Values.sourceObjects.namespaces | default (list .Release.Namespace) -}}
{{- if and (has "*" $namespaces) (gt (len $namespaces) 1) -}}
{{- fail "sourceObjects.namespaces: \"*\" (every namespace) cannot be listed with other namespaces" -}}
{{- end -}}
{{- range $namespaces -}}
{{- if and (ne . "*") (not (regexMatch "^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$" .)) -}}
{{- fail (printf "sourceObjects.namespaces: %q is not a namespace name" .) -}}
{{- end -}}
{{- end -}}
{{- toJson $namespaces -}}
{{- end -}}

{{/*
tidemark.secretGetRoles renders, per namespace, one Role that may `get` exactly the named Secrets
and its RoleBinding to the reconciler: never list or watch, which would return every Secret there.
Takes dict "root" $ "suffix" (the Role's name after "<fullname>-reconciler-") "refs" (a list of
dict "ref" <secretRef {namespace, name, cluster?}> "where" <its path in the values, for errors>).
A ref on a cluster other than one with inCluster (by default the first cluster) is not granted
here: that cluster's RBAC is its own.
*/}}
{{- define "tidemark.secretGetRoles" -}}
{{- $root := .root -}}
{{- $suffix := .suffix -}}
{{- $reconciler := printf "%s-reconciler" (include "tidemark.fullname" $root) -}}
{{- $clusters := default list $root.Values.config.clusters -}}
{{- $firstCluster := "" -}}
{{- if $clusters }}{{ $firstCluster = (index $clusters 0).name }}{{ end -}}
{{- $namesByNamespace := dict -}}
{{- range .refs }}
{{- $where := .where }}
{{- with .ref }}
{{- if or (not .namespace) (not .name) }}
{{- fail (printf "%s: needs namespace and name" $where) }}
{{- end }}
{{- include "tidemark.noWildcard" (dict "words" (list .namespace .name) "where" $where) }}
{{- $clusterName := default $firstCluster .cluster }}
{{- $inCluster := false }}
{{- range $clusters }}{{ if and (eq .name $clusterName) .inCluster }}{{ $inCluster = true }}{{ end }}{{ end }}
{{- if $inCluster }}
{{- $_ := set $namesByNamespace .namespace (append (get $namesByNamespace .namespace | default list) .name | uniq) }}
{{- end }}
{{- end }}
{{- end }}
{{- range $namespace, $names := $namesByNamespace }}
{{- $labels := include "tidemark.labels" (dict "root" $root "component" "reconciler") }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: {{ $reconciler }}-{{ $suffix }}
  namespace: {{ $namespace }}
  labels:
    {{- $labels | nindent 4 }}
rules:
  - apiGroups: [""]
    resources: [secrets]
    resourceNames: {{ toJson (sortAlpha $names) }}
    verbs: [get]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: {{ $reconciler }}-{{ $suffix }}
  namespace: {{ $namespace }}
  labels:
    {{- $labels | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: {{ $reconciler }}-{{ $suffix }}
subjects:
  - kind: ServiceAccount
    name: {{ $reconciler }}
    namespace: {{ $root.Release.Namespace }}
{{- end }}
{{- end -}}

{{- /* tidemark.agentConfig: in agent mode, the config's clusters and agents sections (YAML), after checking the values. */}}
{{- define "tidemark.agentConfig" -}}
{{- $agent := .Values.agent -}}
{{- if $agent.enabled -}}
{{- if not $agent.cluster.name }}{{ fail "agent.cluster.name: name the cluster this agent serves, as the hub's config lists it" }}{{ end -}}
{{- if not $agent.redis.secret }}{{ fail "agent.redis.secret: name the Secret with the hub Redis's address and this agent's ACL username and password" }}{{ end -}}
{{- if or .Values.redis.enabled .Values.dashboard.enabled }}{{ fail "agent.enabled: an agent uses the hub's Redis and dashboard; set redis.enabled=false and dashboard.enabled=false" }}{{ end -}}
{{- if .Values.sourceObjects.enabled }}{{ fail "agent.enabled: Source objects are served by the hub; set sourceObjects.enabled=false" }}{{ end -}}
clusters:
  - name: {{ $agent.cluster.name | quote }}
    inCluster: true
    labels: {{ toJson $agent.cluster.labels }}
agents:
  heartbeatTtlMs: {{ int $agent.heartbeatTtlMs }}
# Keys per cluster on any Redis: the agent's ACL user holds only its cluster's (docs/agents.md).
redis:
  hashTag: true
{{- end -}}
{{- end -}}

{{- /* tidemark.agentRedisEnv: the hub's Redis for an agent, its address and ACL login from agent.redis.secret. */}}
{{- define "tidemark.agentRedisEnv" -}}
{{- $secret := .Values.agent.redis.secret -}}
- name: TIDEMARK_AGENT_REDIS_ADDRESS
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: address
- name: TIDEMARK_REDIS_USERNAME
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: username
- name: TIDEMARK_REDIS_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: password
- name: TIDEMARK_REDIS_URL
  value: "{{ ternary "rediss" "redis" .Values.agent.redis.tls }}://$(TIDEMARK_REDIS_USERNAME):$(TIDEMARK_REDIS_PASSWORD)@$(TIDEMARK_AGENT_REDIS_ADDRESS)"
{{- if .Values.agent.redis.caKey }}
- name: TIDEMARK_REDIS_TLS_CA_FILE
  value: /etc/tidemark/agent-redis/{{ .Values.agent.redis.caKey }}
{{- end }}
{{- end -}}
