import QuireAPI

/// The answer of `GET /health`: `status` (`ok` when the service serves) and `lastEventId` (the id of the newest
/// event, 0 when there is none). openapi.yaml's `Health`, generated in QuireAPI.
public typealias ServiceHealth = Components.Schemas.Health
