@_exported import Molt
