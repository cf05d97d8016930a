//! The order as the service model keeps it: the one typed order of the order engine
//! ([`crate::order::Order`]), named here too so that `poscheck::service::order::*` keeps its paths.

pub use crate::contract::{ActorType, Status};
pub use crate::order::{
    Customer, Fulfillment, HistoryDriver, HistoryRow, Instant, Item, Order, OrderContent, Payment, PaymentMethod, Summary,
};
