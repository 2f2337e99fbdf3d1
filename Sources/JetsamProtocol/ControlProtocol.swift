import JetsamCore
