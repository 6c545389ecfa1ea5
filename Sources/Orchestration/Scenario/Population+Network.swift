import FieldRuntime

extension Population {
    /// Which access network each typist is on, from the mix entries' `network` (the entry of
    /// typist `i` is `mixIndex(forTypist:stride:)`'s, so virtual time and the live modelled
    /// backend put every typist on the same network); `nil` when no entry names one.
    public var clientNetworks: ClientNetworks? {
        let profiles = mix.compactMap(\.network).reduce(into: [NetworkProfile]()) { if !$0.contains($1) { $0.append($1) } }
        guard !profiles.isEmpty, typists > 0 else { return nil }
        let byEntry = mix.map { entry in entry.network.flatMap { profiles.firstIndex(of: $0) }.map { Int8($0) } ?? -1 }
        let stride = Self.mixStride(typists: typists)
        return ClientNetworks(profiles: profiles, byTypist: (0..<typists).map { byEntry[mixIndex(forTypist: $0, stride: stride)] })
    }
}

extension ScenarioBackend {
    /// `model` with the population's access networks (`Population.clientNetworks`): what the
    /// virtual runner and the live modelled backend of a scenario draw from.
    public func model(for population: Population) -> BackendModel {
        var model = self.model
        model.clientNetworks = population.clientNetworks
        return model
    }
}
