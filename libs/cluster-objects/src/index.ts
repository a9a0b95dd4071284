// Owns: the Cluster kind (its CRD, generated from the TypeBox type it is parsed with), loading a Cluster's
//   credentials under the config-file clusters' kubeconfig rules, the controller that keeps the running
//   clusters equal to the Cluster objects, and the ClusterRegistry: which clusters exist now, with their
//   labels and origin, and the changes to them (the one place placement, rollouts and the dashboard read).
// Entry points: ClusterController, ClusterRegistry, clusterCrd, planFleet.
// Records: none in Redis (its state is the Cluster objects' status).
// May import: @tidemark/contracts, @tidemark/cluster.

export { clusterCrd, clusterCrdHeader } from './cluster-crd';
export { planFleet } from './fleet-plan';
export { ClusterRegistry } from './cluster-registry';
export { ClusterController } from './cluster-controller';
