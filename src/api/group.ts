/** The API group and version of the c5c3.io kinds this service serves. */
export const API_GROUP = 'c5c3.io';
export const API_VERSION = 'v1alpha1';
