/**
 * The connector type Takealot's adapter serves: a connector type is Takealot when its uid is
 * this (registry.ts says why). Its own file, so the adapter's HTTP layer can name it without
 * importing the registry that imports the adapter.
 */
export const TAKEALOT_CONNECTOR_UID = 'takealot';
