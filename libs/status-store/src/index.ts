export { StatusStore, type StatusStoreOptions, type StatusChange } from './status-store';
