package txlog.protocol

/** A domainMetadata action a transaction stages ("Domain Metadata"): `removed` tombstones it. */
private[txlog] final case class DomainAction(
    domain: String,
    configuration: String,
    removed: Boolean
)
