"""The checks every task must pass before it lands: no-op, reference, leakage, evidence …"""
